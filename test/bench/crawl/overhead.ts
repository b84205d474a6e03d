/**
 * Overhead vs raw Crawlee: the same local static site crawled by Gleaner (embedded, built app as a
 * process, instant local model) and by a plain CheerioCrawler (its own process), at equal concurrency,
 * alternating (Crawlee, Gleaner, Crawlee, …), for each scenario (site size × concurrency; by default
 * 200 and 2,000 pages at 16 and 32: BENCH_CRAWL_OVERHEAD=200x16,2000x32 picks some). Pages/s and peak
 * RSS (VmHWM, read from outside) of both, and the start: time to the first page fetched (the site's log)
 * and, for Gleaner, to the first result (its SSE stream). Then, on the largest scenario, two instrumented
 * Gleaner runs that are not timed: a --cpu-prof run (where the main thread's time goes) and a run
 * counting SQLite statements per page (test/bench/crawl/count-sqlite.cjs).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envNumber, type BenchContext } from './context';
import { KEY, baseEnv, llmConfig, metricSum, startCrawl, startEmbeddedApp, waitJob, type Embedded } from './gleaner';
import { median, procCpuSeconds, procStatusMb, round, RssSampler, sleep, spawnProc } from './procs';
import { summarizeProfile, type ProfileSummary } from './profile';

const CHILD = join(__dirname, 'crawlee-child.ts');
const COUNTER = join(__dirname, 'count-sqlite.cjs');

export interface OverheadRun {
  engine: 'crawlee' | 'gleaner';
  order: number;
  pages: number;
  failed: number;
  seconds: number;
  pages_per_s: number;
  /** Kernel peak of the process (VmHWM), MB. */
  peak_rss_mb: number;
  /** Highest VmRSS sampled every 100 ms, MB. */
  peak_rss_sampled_mb: number;
  /** CPU time of the crawler process over its whole life (start-up included), s, and per page, ms. */
  cpu_s: number;
  cpu_ms_per_page: number;
  /** CPU of the benchmark process (site server, model server) during the crawl, s. */
  bench_cpu_s: number;
  /** From the start (Crawlee: crawler.run(); Gleaner: POST /crawl) to the first page the site answered, ms. */
  first_fetch_ms: number | null;
  /** Gleaner: POST /crawl to the first `result` event on the job's stream, ms. */
  first_result_ms?: number | null;
  extra?: Record<string, unknown>;
}

export async function crawleeRun(
  ctx: BenchContext,
  order: number,
  seed: string,
  concurrency: number,
  maxPages: number,
): Promise<OverheadRun> {
  const proc = spawnProc(
    'crawlee',
    process.execPath,
    ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', CHILD, seed, String(concurrency), String(maxPages)],
    { env: { PATH: process.env.PATH ?? '', CRAWLEE_LOG_LEVEL: 'WARNING' }, stdin: true, keepLines: 100 },
  );
  const rss = new RssSampler(proc.pid, 100);
  const bench0 = process.cpuUsage();
  ctx.site.clearLog();
  try {
    let line: string | undefined;
    while (!(line = proc.lines.find((l) => l.startsWith('{"pages"')))) {
      if (proc.child.exitCode !== null) throw new Error(`the Crawlee child exited (${proc.child.exitCode}):\n${proc.lines.join('\n')}`);
      await sleep(20);
    }
    const bench = process.cpuUsage(bench0);
    rss.stop();
    const result = JSON.parse(line) as { pages: number; failed: number; seconds: number; started_at: number };
    const cpu = procCpuSeconds(proc.pid) ?? NaN;
    const hwm = procStatusMb(proc.pid, 'VmHWM') ?? rss.hwmMb;
    return {
      engine: 'crawlee',
      order,
      pages: result.pages,
      failed: result.failed,
      seconds: round(result.seconds, 2),
      pages_per_s: round(result.pages / result.seconds),
      peak_rss_mb: round(hwm),
      peak_rss_sampled_mb: round(rss.peakSampledMb),
      cpu_s: round(cpu, 2),
      cpu_ms_per_page: round((cpu * 1000) / result.pages, 2),
      bench_cpu_s: round((bench.user + bench.system) / 1e6, 2),
      first_fetch_ms: firstAnswer(ctx, result.started_at),
    };
  } finally {
    rss.stop();
    proc.child.stdin?.end();
    await proc.stop('SIGTERM', 5000);
  }
}

function gleanerEnv(concurrency: number, extra: Record<string, string> = {}): Record<string, string> {
  return baseEnv('*.test=127.0.0.1', {
    GLEANER_HOST_MAX_CONCURRENCY: String(concurrency),
    GLEANER_PAGE_WORKERS: String(concurrency),
    ...extra,
  });
}

async function memoryBreakdown(app: Embedded): Promise<Record<string, number>> {
  const mb = async (name: string) => round((await metricSum(app.url, name)) / 1048576);
  return {
    main_heap_used_mb: await mb('nodejs_heap_size_used_bytes'),
    main_heap_total_mb: await mb('nodejs_heap_size_total_bytes'),
    main_external_mb: await mb('nodejs_external_memory_bytes'),
    rss_mb_now: await mb('process_resident_memory_bytes'),
  };
}

async function gleanerRun(
  ctx: BenchContext,
  order: number,
  seed: string,
  concurrency: number,
  maxPages: number,
  instrument: { nodeArgs?: string[]; env?: Record<string, string> } = {},
): Promise<OverheadRun & { app?: Embedded }> {
  const app = await startEmbeddedApp(gleanerEnv(concurrency, instrument.env), instrument.nodeArgs);
  const rss = new RssSampler(app.proc.pid, 100);
  try {
    const bench0 = process.cpuUsage();
    ctx.site.clearLog();
    const startedAt = Date.now();
    const started = performance.now();
    const id = await startCrawl(app.url, {
      url: seed,
      options: { max_depth: 10, max_pages: maxPages, concurrency, fetch_mode: 'static' },
      llm_config: llmConfig(ctx.models.openaiBaseUrl),
    });
    const stream = await watchJobStream(app.url, id, started);
    const resets = setInterval(() => ctx.models.reset(), 1000);
    await stream.done.finally(() => clearInterval(resets));
    const seconds = (stream.completeAt! - started) / 1000;
    const view = await waitJob(app.url, id, { everyMs: 50 });
    const bench = process.cpuUsage(bench0);
    rss.stop();
    if (view.status !== 'completed') throw new Error(`the Gleaner crawl ended ${view.status}: ${view.error_message}`);
    const cpu = procCpuSeconds(app.proc.pid) ?? NaN;
    const hwm = procStatusMb(app.proc.pid, 'VmHWM') ?? rss.hwmMb;
    const jobSeconds = view.started_at && view.completed_at ? (Date.parse(view.completed_at) - Date.parse(view.started_at)) / 1000 : null;
    return {
      engine: 'gleaner',
      order,
      pages: view.page_count,
      failed: view.failed_count,
      seconds: round(seconds, 2),
      pages_per_s: round(view.page_count / seconds),
      peak_rss_mb: round(hwm),
      peak_rss_sampled_mb: round(rss.peakSampledMb),
      cpu_s: round(cpu, 2),
      cpu_ms_per_page: round((cpu * 1000) / view.page_count, 2),
      bench_cpu_s: round((bench.user + bench.system) / 1e6, 2),
      first_fetch_ms: firstAnswer(ctx, startedAt),
      first_result_ms: stream.firstResultAt === null ? null : round(stream.firstResultAt - started),
      extra: { job_started_to_completed_s: jobSeconds, memory_at_end: await memoryBreakdown(app) },
      app,
    };
  } finally {
    rss.stop();
    if (!instrument.nodeArgs) await app.close();
  }
}

interface Scenario {
  pages: number;
  concurrency: number;
}

/** `200x16,2000x32` → scenarios (BENCH_CRAWL_OVERHEAD); BENCH_CRAWL_PAGES and BENCH_CRAWL_CONCURRENCY still give one. */
function scenarios(): Scenario[] {
  if (process.env.BENCH_CRAWL_PAGES || process.env.BENCH_CRAWL_CONCURRENCY) {
    return [{ pages: envNumber('BENCH_CRAWL_PAGES', 2000), concurrency: envNumber('BENCH_CRAWL_CONCURRENCY', 16) }];
  }
  return (process.env.BENCH_CRAWL_OVERHEAD ?? '200x16,200x32,2000x16,2000x32').split(',').map((item) => {
    const [pages, concurrency] = item.split('x').map(Number);
    if (!(pages > 0 && concurrency > 0)) throw new Error(`BENCH_CRAWL_OVERHEAD: ${item} is not <pages>x<concurrency>`);
    return { pages, concurrency };
  });
}

/** The targets of the crawl engine's issue: ≥ 0.9× raw Crawlee on a 200-page site, ≥ 1.0× on 2,000 pages. */
const ratioTarget = (pages: number) => (pages >= 2000 ? 1.0 : 0.9);

export async function overhead(ctx: BenchContext): Promise<Record<string, unknown>> {
  const repeats = envNumber('BENCH_CRAWL_REPEATS', 3);
  const list = scenarios();
  const results: Record<string, unknown> = {};
  const met: Record<string, boolean> = {};
  for (const scenario of list) {
    const key = `${scenario.pages}_pages_c${scenario.concurrency}`;
    const result = await runScenario(ctx, scenario, repeats);
    results[key] = result;
    met[`${key}_ratio`] = result.ratio_pages_per_s >= ratioTarget(scenario.pages);
    met[`${key}_rss`] = result.rss_delta_mb <= 150;
  }
  const largest = [...list].sort((a, b) => b.pages - a.pages || a.concurrency - b.concurrency)[0];
  let evidence: Record<string, unknown> | undefined;
  if (process.env.BENCH_CRAWL_EVIDENCE !== '0') {
    ctx.site.configure({ size: largest.pages, delayMs: 0 });
    evidence = { scenario: largest, ...(await instrumentedRuns(ctx, ctx.site.url('127.0.0.1', '/'), largest.concurrency, largest.pages)) };
  }
  return {
    setup: {
      site: 'local static tree of ~5 KB pages (10 child links + a Home link each), no robots.txt; both crawl http://127.0.0.1:<port>/',
      gleaner:
        'embedded, built app (dist) as a process; fetch_mode static, max_depth 10, instant model gpt-4o-mini on the local model server; ' +
        'GLEANER_PAGE_WORKERS and GLEANER_HOST_MAX_CONCURRENCY = the concurrency, GLEANER_ALLOW_NETWORKS=127.0.0.0/8, GLEANER_BROWSER_ENABLED=false, LOG_LEVEL=info',
      crawlee:
        'CheerioCrawler (@crawlee/cheerio 3.18.1), new Configuration({ persistStorage: false }), min/maxConcurrency = the concurrency, enqueueLinks same-hostname; its own process (Node type stripping, no loader)',
      timing:
        'Crawlee: crawler.run() start to end inside the child. Gleaner: POST /crawl to the `complete` event on the job stream (SSE, opened right after the POST; it replays from the first event). ' +
        'first_fetch_ms: to the first page the site answered; first_result_ms: to the first `result` event.',
      rss: 'VmHWM of the crawler process from /proc/<pid>/status (a fresh process per run, start-up included); VmRSS also sampled every 100 ms',
      order: 'per scenario: Crawlee, Gleaner, Crawlee, … (alternating; medians of each)',
    },
    scenarios: results,
    targets: { ratio_min_200_pages: 0.9, ratio_min_2000_pages: 1.0, rss_delta_max_mb: 150 },
    met,
    evidence,
  };
}

async function runScenario(ctx: BenchContext, { pages, concurrency }: Scenario, repeats: number) {
  ctx.site.configure({ size: pages, delayMs: 0 });
  const seed = ctx.site.url('127.0.0.1', '/');
  // Warm the site's page cache and the OS before the first measured run.
  await fetch(seed).then((r) => r.text());
  const runs: OverheadRun[] = [];
  for (let i = 0; i < repeats * 2; i++) {
    const engine = i % 2 === 0 ? 'crawlee' : 'gleaner';
    ctx.log(`overhead ${pages} pages, concurrency ${concurrency}: run ${i + 1}/${repeats * 2} (${engine})`);
    const run =
      engine === 'crawlee'
        ? await crawleeRun(ctx, i + 1, seed, concurrency, pages)
        : await gleanerRun(ctx, i + 1, seed, concurrency, pages);
    delete (run as { app?: unknown }).app;
    if (run.pages !== pages)
      ctx.notes.push(`overhead: ${engine} run ${i + 1} (${pages}x${concurrency}) crawled ${run.pages} of ${pages} pages`);
    ctx.log(
      `  ${run.pages} pages in ${run.seconds} s = ${run.pages_per_s} pages/s, first fetch ${run.first_fetch_ms} ms` +
        `${run.first_result_ms !== undefined ? `, first result ${run.first_result_ms} ms` : ''}, peak RSS ${run.peak_rss_mb} MB`,
    );
    runs.push(run);
  }
  const of = (engine: string) => runs.filter((r) => r.engine === engine);
  const numbers = (values: Array<number | null | undefined>) => values.filter((v): v is number => typeof v === 'number');
  const summary = (list: OverheadRun[]) => ({
    pages_per_s: median(list.map((r) => r.pages_per_s)),
    seconds: median(list.map((r) => r.seconds)),
    peak_rss_mb: median(list.map((r) => r.peak_rss_mb)),
    cpu_ms_per_page: median(list.map((r) => r.cpu_ms_per_page)),
    first_fetch_ms: median(numbers(list.map((r) => r.first_fetch_ms))),
    ...(list[0]?.engine === 'gleaner' ? { first_result_ms: median(numbers(list.map((r) => r.first_result_ms))) } : {}),
  });
  const crawlee = summary(of('crawlee'));
  const gleaner = summary(of('gleaner'));
  // Ratios of the runs side by side (run 2i+1 vs 2i+2), to show how much of the spread is the machine.
  const pairRatios = of('gleaner').map((g, i) => round(g.pages_per_s / of('crawlee')[i].pages_per_s, 2));
  return {
    pages,
    concurrency,
    runs,
    median: { crawlee, gleaner },
    ratio_pages_per_s: round(gleaner.pages_per_s / crawlee.pages_per_s, 2),
    ratio_by_pair: pairRatios,
    rss_delta_mb: round(gleaner.peak_rss_mb - crawlee.peak_rss_mb),
    target_ratio: ratioTarget(pages),
  };
}

/** The first page the site answered after `since` (ms since epoch), as ms from `since`. */
function firstAnswer(ctx: BenchContext, since: number): number | null {
  const times = [...ctx.site.answered.values()].flat().filter((t) => t >= since);
  return times.length > 0 ? Math.min(...times) - since : null;
}

/**
 * The job's SSE stream, opened right after the POST (it replays every event from the first): when the
 * first `result` and the `complete` event arrived, in performance.now() time.
 */
export async function watchJobStream(base: string, id: string, started: number) {
  const { createParser } = await import('eventsource-parser');
  const res = await fetch(`${base}/api/v1/jobs/${id}/stream`, { headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' } });
  if (!res.ok || !res.body) throw new Error(`GET /jobs/${id}/stream answered ${res.status}`);
  const watch = { firstResultAt: null as number | null, completeAt: null as number | null, done: Promise.resolve() };
  let ended = false;
  const parser = createParser({
    onEvent(event) {
      const at = performance.now();
      if (event.event === 'result' && watch.firstResultAt === null) watch.firstResultAt = at;
      // Every job ends with one `complete` event, whatever its status (a page's `error` event does not end it).
      if (event.event === 'complete') {
        watch.completeAt ??= at;
        ended = true;
      }
    },
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  watch.done = (async () => {
    while (!ended) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    await reader.cancel().catch(() => undefined);
    if (watch.completeAt === null)
      throw new Error(`the stream of crawl ${id} ended without a complete event (${performance.now() - started} ms)`);
  })();
  return watch;
}

/** One --cpu-prof run and one SQLite-counting run of Gleaner (not part of the medians: instrumentation costs time). */
async function instrumentedRuns(ctx: BenchContext, seed: string, concurrency: number, pages: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-bench-prof-'));
  try {
    ctx.log('overhead: instrumented run 1/2 (--cpu-prof)');
    const profiled = await gleanerRun(ctx, 0, seed, concurrency, pages, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
    await profiled.app!.close(); // the profile is written at exit
    const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    // The main thread's profile is the first one written (…<pid>.0.001…); the others are the content worker threads.
    const main = files.sort().find((f) => /\.0\.\d+\.cpuprofile$/.test(f)) ?? files.sort()[0];
    const threads = files.filter((f) => f !== main).map((f) => summarizeProfile(join(dir, f), 5));
    out.cpu_profile = {
      pages_per_s_while_profiled: profiled.pages_per_s,
      note: 'main thread of the embedded app over its whole life (start-up ~3 s included); by_owner attributes each sample to the Gleaner lib nearest on its stack',
      main_thread: summarizeProfile(join(dir, main)),
      content_threads: threads.map((t: ProfileSummary) => ({
        busy_ms: Math.round((t.total_ms * (100 - t.idle_pct)) / 100),
        idle_pct: t.idle_pct,
      })),
    };

    ctx.log('overhead: instrumented run 2/2 (SQLite statement counts)');
    const countsFile = join(dir, 'sql-counts.json');
    const counted = await gleanerRun(ctx, 0, seed, concurrency, pages, {
      nodeArgs: ['--require', COUNTER],
      env: { BENCH_SQL_COUNTS_FILE: countsFile },
    });
    await counted.app!.close();
    const counts = JSON.parse(readFileSync(countsFile, 'utf8')) as {
      commits: number;
      statements: Record<string, { n: number; ms: number }>;
      callers: Record<string, { n: number; ms: number; statements: string[] }>;
    };
    const perPage = (n: number) => round(n / counted.pages, 2);
    let writes = 0;
    let reads = 0;
    let statementMs = 0;
    for (const [kind, s] of Object.entries(counts.statements)) {
      if (/^(INSERT|UPDATE|DELETE)/.test(kind)) writes += s.n;
      if (/^SELECT/.test(kind)) reads += s.n;
      statementMs += s.ms;
    }
    out.sqlite = {
      pages: counted.pages,
      pages_per_s_while_counted: counted.pages_per_s,
      transactions_per_page: perPage(counts.commits),
      writes_per_page: perPage(writes),
      reads_per_page: perPage(reads),
      sqlite_ms_per_page: round(statementMs / counted.pages, 3),
      note: 'transactions are the explicit BEGIN IMMEDIATE … COMMIT of findOneAndUpdate/insertMany/updateMany; a plain insertOne autocommits. sqlite_ms counts the time inside node:sqlite calls (BEGIN/COMMIT included), not the JSON work around them.',
      by_statement: Object.fromEntries(Object.entries(counts.statements).map(([k, s]) => [k, { per_page: perPage(s.n), ms: s.ms }])),
      by_caller: Object.fromEntries(
        Object.entries(counts.callers)
          .filter(([, c]) => c.n >= counted.pages / 20)
          .map(([k, c]) => [k, { per_page: perPage(c.n), ms: c.ms, statements: c.statements.join(', ') }]),
      ),
    };
    // The store-backed queue's polling: claims of the page queue per page, from the counts above.
    const claims = counts.callers['StoreQueueAdapter.claim']?.n ?? 0;
    out.queue = { store_queue_claim_statements_per_page: perPage(claims) };
  } finally {
    // BENCH_CRAWL_KEEP_PROFILE=1 keeps the .cpuprofile files (for a look in DevTools); the path is logged.
    if (process.env.BENCH_CRAWL_KEEP_PROFILE === '1') ctx.log(`overhead: profiles kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
