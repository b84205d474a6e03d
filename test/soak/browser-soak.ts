/**
 * The browser fleet over hours (`npm run soak:browser`, 20 minutes; BROWSER_SOAK_MINUTES for another length):
 * the embedded deployment (built app, one process: "the crawler") crawls the JavaScript-only site of
 * test/soak/js-site.ts, one crawl of 150 pages after the other, through Chromium at concurrency 8 — rendered pages, pages that hang (the network, or the
 * tab's script), pages that crash their tab, pages that never let the network go idle — and every 10 s the soak
 * records the Chromium process trees of the crawler's pool (each browser's tree counted once, its processes
 * counted), its open contexts and pages, the resident memory of the crawler and of the trees, and pages/s.
 *
 * Before that, the reaping check: a crawler with a browser is killed with -9 while its browser is frozen
 * (SIGSTOP: a wedged browser cannot notice its owner died, which a healthy one does by itself), and the next
 * start must kill what its predecessor left.
 *
 * Verdict (targets of docs/operations.md "Browser fleet"): trees never more than the pool's browsers; none
 * left after the crawler stops (SIGTERM) nor after the restart that follows a kill -9; RSS of the crawler and
 * of the trees grows at most 10 % from minute 5 (or half the run, if shorter) to the end (the peaks of the
 * samples over 4 minutes, about one crawl, from minute 5 and up to the end); every hanging page ends at the
 * fetch timeout as a failed item (`timeout`), every crashing page as a failed item that says so, and no tab outlives its page (the site sees
 * the hung requests closed and the endless pages' requests stop). Writes bench-results/soak-browser.json.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { API_MAIN, ROOT, assertBuilt, startProcess, type AppProcess } from '../e2e/processes';
import { buildTestApp } from '../test-app/build';
import { browserTrees, readProc, stillRunning, type ProcInfo } from './process-trees';
import { kindOf, startJsSite, type JsSite, type PageKind } from './js-site';

const MINUTES = Number(process.env.BROWSER_SOAK_MINUTES ?? 20);
const OUT = process.env.BROWSER_SOAK_OUT ?? join(ROOT, 'bench-results', 'soak-browser.json');
const SAMPLE_MS = 10_000;
const CONCURRENCY = 8;
const MAX_BROWSERS = 2;
const FETCH_TIMEOUT_MS = 15_000;
const PAGE_HEAP_MB = 128;
/**
 * The long run is a series of crawls of this many pages, one after the other (each from a fresh part of the
 * site): a crawler's memory holds each crawl's state while it runs, so growth across crawls is what leaks.
 */
const CRAWL_PAGES = Number(process.env.BROWSER_SOAK_CRAWL_PAGES ?? 150);
/** A hung page may outlive the fetch timeout by this much before it counts as waiting forever (a busy machine). */
const SLACK_MS = 30_000;
const KEY = 'glk_' + 'B'.repeat(20) + 'r'.repeat(20);

const log = (...parts: unknown[]) => console.log(`[browser-soak ${new Date().toISOString().slice(11, 19)}]`, ...parts);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : null;
};

interface Sample {
  t_s: number;
  trees: number;
  processes_per_tree: number[];
  /** Summed over the trees' processes (shared pages counted in each process), and the same as PSS (counted once). */
  browser_rss_mb: number;
  browser_pss_mb: number;
  crawler_rss_mb: number;
  /** The crawler's V8 heap in use (its /metrics), which shows a leak without the allocator's high-water mark. */
  crawler_heap_used_mb: number | null;
  open_contexts: number | null;
  open_pages: number | null;
  waiting_for_browser: number | null;
  pages_done: number;
  pages_per_s: number;
}

async function call(app: AppProcess, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

async function poolGauges(app: AppProcess): Promise<Record<string, number>> {
  try {
    const text = await (await fetch(`${app.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^gleaner_browser_pool_pages\{[^}]*state="(\w+)"[^}]*\} ([0-9.e+-]+)$/gm)) out[m[1]] = Number(m[2]);
    const heap = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text);
    if (heap) out.heap_used_bytes = Number(heap[1]);
    return out;
  } catch {
    return {};
  }
}

function startCrawl(app: AppProcess, site: JsSite, models: ModelServer, maxPages: number, seed = '/'): Promise<{ job_id: string }> {
  return call(app, 'POST', '/api/v1/crawl', {
    url: site.url(seed),
    schema: { name: 'string', price: 'string' },
    llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-browser-soak', base_url: models.openaiBaseUrl },
    options: { max_depth: 10, max_pages: maxPages, concurrency: CONCURRENCY, fetch_mode: 'dynamic' },
  });
}

async function main(): Promise<void> {
  // processes.ts checks the test app too (these runs use the production entry points only); compiling it takes milliseconds.
  buildTestApp();
  assertBuilt();
  const t0 = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'gleaner-browser-soak-'));
  const site = await startJsSite();
  const models = await startModelServer();
  const env: Record<string, string> = {
    DATA_DIR: join(work, 'data'),
    GLEANER_BOOTSTRAP_KEY: KEY,
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: site.resolve,
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_LLM_RETRIES: '0',
    GLEANER_BROWSER_MAX_BROWSERS: String(MAX_BROWSERS),
    GLEANER_BROWSER_PAGE_HEAP_MB: String(PAGE_HEAP_MB),
    GLEANER_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
    GLEANER_HOST_MAX_CONCURRENCY: String(CONCURRENCY),
    GLEANER_PAGE_WORKERS: String(CONCURRENCY),
    GLEANER_SHUTDOWN_GRACE_MS: '5000',
    LOG_LEVEL: 'warn',
  };
  const failures: string[] = [];
  const fail = (message: string) => {
    log(`FAIL ${message}`);
    if (failures.length < 100) failures.push(message);
  };
  log(`${MINUTES} min; concurrency ${CONCURRENCY}, ${MAX_BROWSERS} browsers, fetch timeout ${FETCH_TIMEOUT_MS} ms; work in ${work}`);

  // ------------------------------------------------------------ reaping after kill -9
  let crawler = await startProcess('crawler-1', API_MAIN, [], env, 'PORT');
  const first = await startCrawl(crawler, site, models, 200);
  let trees = browserTrees(crawler.child.pid!);
  for (let i = 0; i < 600 && trees.length === 0; i++) {
    await sleep(200);
    trees = browserTrees(crawler.child.pid!);
  }
  if (trees.length === 0) throw new Error('the first crawler never started a browser');
  await sleep(2000); // let it open a few pages
  trees = browserTrees(crawler.child.pid!);
  const frozen: ProcInfo[] = trees.flatMap((t) => t.processes);
  for (const p of frozen) process.kill(p.pid, 'SIGSTOP');
  crawler.child.kill('SIGKILL');
  await crawler.exited;
  await sleep(2000);
  const leftAfterKill = stillRunning(frozen);
  crawler = await startProcess('crawler-2', API_MAIN, [], env, 'PORT');
  const leftAfterRestart = stillRunning(frozen);
  const reaping = {
    browsers_at_kill: trees.length,
    processes_at_kill: frozen.length,
    processes_left_after_kill: leftAfterKill.length,
    processes_left_after_restart: leftAfterRestart.length,
  };
  log(
    `kill -9 with a frozen browser: ${frozen.length} processes in ${trees.length} trees; ${leftAfterKill.length} left; after the restart ${leftAfterRestart.length}`,
  );
  if (leftAfterKill.length === 0) fail('the frozen browser did not outlive its killed owner: the reaping was not exercised');
  if (leftAfterRestart.length > 0) fail(`${leftAfterRestart.length} browser processes of the killed crawler survived the next start`);
  await call(crawler, 'POST', `/api/v1/jobs/${first.job_id}/cancel`).catch(() => undefined);

  // ------------------------------------------------------------ the long crawl
  const served = { ...site.served };
  const crawls: string[] = [];
  const entries: any[] = [];
  let finishedPages = 0;
  const nextCrawl = async () => {
    // Seeds n = 20k + 1 are rendered pages; each crawl starts in its own subtree.
    const job = await startCrawl(crawler, site, models, CRAWL_PAGES, `/p/${20 * crawls.length + 1}`);
    crawls.push(job.job_id);
    return job.job_id;
  };
  let crawlId = await nextCrawl();
  const started = Date.now();
  const endAt = started + MINUTES * 60_000;
  const samples: Sample[] = [];
  const seen = new Map<string, ProcInfo>();
  let lastDone = 0;
  let lastAt = started;
  while (Date.now() < endAt) {
    await sleep(Math.min(SAMPLE_MS, Math.max(0, endAt - Date.now())));
    const now = Date.now();
    const current = browserTrees(crawler.child.pid!);
    for (const t of current) for (const p of t.processes) seen.set(`${p.pid}.${p.start}`, p);
    const gauges = await poolGauges(crawler);
    const status = await call(crawler, 'GET', `/api/v1/jobs/${crawlId}`).catch(() => null);
    const ofCurrent = status ? Number(status.page_count ?? 0) + Number(status.failed_count ?? 0) : 0;
    const done = finishedPages + ofCurrent;
    if (status && ['completed', 'failed', 'cancelled'].includes(status.status)) {
      if (status.status !== 'completed') fail(`crawl ${crawlId} ended ${status.status}: ${status.error_message ?? ''}`);
      entries.push(...(await crawlEntries(crawler, crawlId)));
      finishedPages += ofCurrent;
      crawlId = await nextCrawl();
    }
    const sample: Sample = {
      t_s: Math.round((now - started) / 1000),
      trees: current.length,
      processes_per_tree: current.map((t) => t.processes.length),
      browser_rss_mb: mb(current.reduce((n, t) => n + t.rssBytes, 0)),
      browser_pss_mb: mb(current.reduce((n, t) => n + t.pssBytes, 0)),
      crawler_rss_mb: mb(readProc(crawler.child.pid!)?.rssBytes ?? 0),
      crawler_heap_used_mb: gauges.heap_used_bytes === undefined ? null : mb(gauges.heap_used_bytes),
      open_contexts: gauges.open_contexts ?? null,
      open_pages: gauges.open_pages ?? null,
      waiting_for_browser: gauges.waiting ?? null,
      pages_done: done,
      pages_per_s: Math.round(((done - lastDone) / ((now - lastAt) / 1000)) * 100) / 100,
    };
    lastDone = done;
    lastAt = now;
    samples.push(sample);
    log(
      `t ${sample.t_s}s: ${sample.trees} trees (${sample.processes_per_tree.join('+') || 0} processes), ${sample.open_contexts} contexts, browsers ${sample.browser_rss_mb} MB (PSS ${sample.browser_pss_mb}), crawler ${sample.crawler_rss_mb} MB, ${done} pages (${sample.pages_per_s}/s)`,
    );
    if (sample.trees > MAX_BROWSERS) fail(`t ${sample.t_s}s: ${sample.trees} browser trees, more than the pool's ${MAX_BROWSERS}`);
  }

  // Before the stop: the map of every page so far (its hang and crash pages must have ended, and ended right).
  for (const t of browserTrees(crawler.child.pid!)) for (const p of t.processes) seen.set(`${p.pid}.${p.start}`, p);
  const map = await call(crawler, 'GET', `/api/v1/jobs/${crawlId}/crawl-map?limit=1000`).catch(() => null);
  await call(crawler, 'POST', `/api/v1/jobs/${crawlId}/cancel`).catch(() => undefined);
  entries.push(...(await crawlEntries(crawler, crawlId)));
  const stopCode = await crawler.stop('SIGTERM');
  const leftAfterStop = stillRunning(seen.values());
  log(`crawler stopped (exit ${stopCode}); ${leftAfterStop.length} of ${seen.size} browser processes seen still running`);
  if (leftAfterStop.length > 0) fail(`${leftAfterStop.length} browser processes left after the crawler stopped`);
  if (stopCode !== 0) fail(`the crawler exited ${stopCode} on SIGTERM`);

  // ------------------------------------------------------------ hangs, crashes, endless pages
  const outcomes: Record<PageKind, Record<string, number>> = { rendered: {}, 'hang-net': {}, 'hang-js': {}, crash: {}, endless: {} };
  for (const e of entries) {
    const n = Number(/\/p\/(\d+)$/.exec(e.url)?.[1] ?? 0);
    const kind = n === 0 ? 'rendered' : kindOf(n);
    const key = e.status === 'failed' ? `failed:${e.error_category}` : e.status;
    outcomes[kind][key] = (outcomes[kind][key] ?? 0) + 1;
    if ((kind === 'hang-net' || kind === 'hang-js') && e.status === 'failed' && e.error_category !== 'timeout')
      fail(`hanging page ${e.url} failed as ${e.error_category}: ${e.error_message}`);
    if ((kind === 'hang-net' || kind === 'hang-js' || kind === 'crash') && e.status === 'completed')
      fail(`${kind} page ${e.url} completed`);
    if (kind === 'crash' && e.status === 'failed' && !/crashed its browser tab/.test(e.error_message ?? ''))
      fail(`crashing page ${e.url} failed without saying so: ${e.error_category} ${e.error_message}`);
    if (e.status === 'failed' && !e.error_message) fail(`failed page ${e.url} has no error message`);
  }
  const hangs = site.hangs();
  const openHangs = hangs.filter((h) => h.closedAt === null);
  const longest = Math.max(0, ...hangs.filter((h) => h.closedAt !== null).map((h) => h.closedAt! - h.at));
  if (longest > FETCH_TIMEOUT_MS + SLACK_MS) fail(`a hanging request stayed open ${longest} ms (timeout ${FETCH_TIMEOUT_MS} ms)`);
  for (const h of openHangs) fail(`a hanging request (${h.path}) was never closed`);
  const pingSpan = site.longestPingSpan();
  if (pingSpan > FETCH_TIMEOUT_MS + SLACK_MS) fail(`an endless page kept requesting for ${pingSpan} ms (its tab outlived the page)`);

  // ------------------------------------------------------------ memory growth
  // Within a crawl the crawler's memory rises with the crawl's state and falls back when the collector gives
  // pages back (a saw-tooth with the crawl's period, a few minutes), so a median depends on which phase each
  // window caught (two runs: -13 % and +22 % by medians, +3 % and +6 % by peaks). The verdict compares the peaks (the high-water
  // mark) of two windows that each span about one crawl, from minute 5 and up to the end: a leak raises every
  // peak. The medians and the V8 heap in use are recorded beside them.
  const baseMinute = Math.min(5, MINUTES / 2);
  const windowMinutes = Math.min(4, MINUTES / 5);
  const within = (from: number, to: number) => samples.filter((s) => s.t_s >= from * 60 && s.t_s <= to * 60);
  const ratio = (base: number | null, end: number | null) => (base && end !== null ? Math.round((end / base - 1) * 1000) / 1000 : null);
  const growth = (pick: (s: Sample) => number | null) => {
    const values = (from: number, to: number) =>
      within(from, to)
        .map(pick)
        .filter((v): v is number => v !== null);
    const base = values(baseMinute, baseMinute + windowMinutes);
    const end = values(MINUTES - windowMinutes, MINUTES);
    const peak = (list: number[]) => (list.length ? Math.max(...list) : null);
    return {
      base_peak_mb: peak(base),
      end_peak_mb: peak(end),
      growth: ratio(peak(base), peak(end)),
      base_median_mb: median(base),
      end_median_mb: median(end),
      median_growth: ratio(median(base), median(end)),
    };
  };
  const crawlerGrowth = growth((s) => s.crawler_rss_mb);
  const crawlerHeapGrowth = growth((s) => s.crawler_heap_used_mb);
  const browserGrowth = growth((s) => s.browser_rss_mb);
  const browserPssGrowth = growth((s) => s.browser_pss_mb);
  for (const [what, g] of [
    ['crawler', crawlerGrowth],
    ['browser trees', browserGrowth],
  ] as const) {
    if (g.growth === null) fail(`no ${what} RSS samples around minute ${baseMinute} and at the end`);
    else if (g.growth > 0.1)
      fail(
        `${what} RSS peak grew ${Math.round(g.growth * 100)} % from minute ${baseMinute} (${g.base_peak_mb} MB) to the end (${g.end_peak_mb} MB)`,
      );
  }

  const pages = samples.at(-1)?.pages_done ?? 0;
  const report = {
    benchmark: 'soak-browser',
    date: new Date().toISOString(),
    minutes: MINUTES,
    wall_seconds: Math.round((Date.now() - t0) / 1000),
    settings: {
      deployment: 'embedded (one process)',
      crawl_concurrency: CONCURRENCY,
      pool_browsers: MAX_BROWSERS,
      fetch_timeout_ms: FETCH_TIMEOUT_MS,
      page_heap_mb: PAGE_HEAP_MB,
      site: 'js-site: 1 page in 20 each hang-net, hang-js, crash, endless; the rest rendered by script',
    },
    verdict: failures.length === 0 ? 'pass' : 'fail',
    failures,
    reaping_after_kill_9: reaping,
    trees: {
      max: Math.max(0, ...samples.map((s) => s.trees)),
      limit: MAX_BROWSERS,
      max_processes_in_a_tree: Math.max(0, ...samples.flatMap((s) => s.processes_per_tree)),
      processes_seen: seen.size,
      left_after_stop: leftAfterStop.length,
    },
    rss: {
      base_minute: baseMinute,
      window_minutes: windowMinutes,
      crawler: crawlerGrowth,
      crawler_heap_used: crawlerHeapGrowth,
      browser_trees: browserGrowth,
      browser_trees_pss: browserPssGrowth,
    },
    throughput: {
      pages,
      pages_per_s: Math.round((pages / (MINUTES * 60)) * 100) / 100,
      open_contexts_max: Math.max(0, ...samples.map((s) => s.open_contexts ?? 0)),
    },
    pages_by_kind: outcomes,
    crawls: { finished: crawls.length - 1, pages_each: CRAWL_PAGES },
    crawl_map_at_stop: map
      ? { total: map.total, completed: map.completed, failed: map.failed, running: map.running, pending: map.pending }
      : null,
    site_requests: {
      during_run: diff(site.served, served),
      hung_requests: hangs.length,
      longest_hang_ms: longest,
      longest_ping_span_ms: pingSpan,
    },
    samples,
  };
  mkdirSync(join(OUT, '..'), { recursive: true });
  writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n');
  log(
    `verdict: ${report.verdict}; ${pages} pages (${report.throughput.pages_per_s}/s), trees max ${report.trees.max}, RSS growth crawler ${crawlerGrowth.growth} browsers ${browserGrowth.growth}; ${OUT}`,
  );
  await site.close();
  await models.close();
  process.exit(failures.length === 0 ? 0 : 1);
}

function diff(now: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - (before[k] ?? 0)]));
}

async function crawlEntries(app: AppProcess, jobId: string): Promise<any[]> {
  const all: any[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await call(app, 'GET', `/api/v1/jobs/${jobId}/crawl-map?limit=1000&offset=${offset}`);
    all.push(...(page.entries as any[]));
    if ((page.entries as any[]).length < 1000) return all;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
