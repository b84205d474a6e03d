/**
 * npm run bench:million — one durable embedded crawl of a million pages on this machine (docs/crawl.md
 * "Crawls past 100,000 pages"), written to bench-results/million.json. No timed assertions: the numbers and
 * the evidence are reported, and the run fails only when the crawl does not end with every page once.
 *
 * The built app (dist) as one embedded process with GLEANER_CRAWL_MAX_PAGES raised to the crawl's size; the
 * crawl benchmark's site (bench/crawl/site.ts): hub.test links to BENCH_MILLION_HOSTS hosts, each a generated
 * tree of pages of ~5 KB with ten child links (and Home), answering at once; the local model server answering at
 * once; the archive on (the default). At BENCH_MILLION_KILL_AT of the pages the process is killed with SIGKILL
 * and started again on the same data directory: the crawl goes on from the store.
 *
 * Recorded: wall time; pages/s per minute (flat or decaying); the app's RSS and V8 heap in use every 10 s (and
 * their per-minute floor: the live heap); the data directory's bytes per page; the pages fetched more than once
 * (those in flight at the kill); the results read back to the end as JSON Lines (count, distinct URLs, the app's
 * RSS while it streams); the crawl map read by pages at its start, middle and end, and streamed whole.
 *
 * Knobs: BENCH_MILLION_PAGES (1,000,000: the tree pages, the hub adds one), BENCH_MILLION_HOSTS (100),
 * BENCH_MILLION_CONCURRENCY (32), BENCH_MILLION_KILL_AT (0.5; 0 for no kill). A try: BENCH_MILLION_PAGES=20000.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { startModelServer } from '../fixtures/model-server';
import { envNumber } from './crawl/context';
import {
  KEY,
  ROOT,
  assertBuilt,
  baseEnv,
  job,
  llmConfig,
  startCrawl,
  startEmbeddedApp,
  waitJob,
  type Embedded,
  type JobView,
} from './crawl/gleaner';
import { killAll, procStatusMb, round, sleep } from './crawl/procs';
import { fullRead, heapUsedMb, pagedReads } from './crawl/size';
import { startBenchSite } from './crawl/site';

const TREE_PAGES = envNumber('BENCH_MILLION_PAGES', 1_000_000);
const HOSTS = envNumber('BENCH_MILLION_HOSTS', 100);
const CONCURRENCY = envNumber('BENCH_MILLION_CONCURRENCY', 32);
const KILL_AT = Number(process.env.BENCH_MILLION_KILL_AT ?? 0.5);
const OUT = join(ROOT, 'bench-results', 'million.json');

interface Sample {
  t_s: number;
  pages: number;
  rss_mb: number;
  heap_used_mb: number;
  process: number;
}

function dirBytes(dir: string): number {
  let bytes = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else bytes += statSync(full).size;
    }
  };
  walk(dir);
  return bytes;
}

/** The results as JSON Lines, streamed to the end: lines, distinct URLs, bytes, and the app's RSS meanwhile. */
async function readResults(app: Embedded, id: string): Promise<Record<string, number>> {
  const rssBefore = procStatusMb(app.proc.pid, 'VmRSS') ?? NaN;
  let peak = rssBefore;
  const timer = setInterval(() => (peak = Math.max(peak, procStatusMb(app.proc.pid, 'VmRSS') ?? 0)), 100);
  const started = performance.now();
  try {
    const res = await fetch(`${app.url}/api/v1/jobs/${id}/results?format=jsonl`, { headers: { authorization: `Bearer ${KEY}` } });
    const urls = new Set<string>();
    let lines = 0;
    let completed = 0;
    // The hub's pages (the ranged start page and the bare one every page's Home link leads to) are answered
    // by the site but not logged in `site.answered`, which logs the tree pages only.
    let hubPages = 0;
    let bytes = 0;
    let carry = '';
    const decoder = new TextDecoder();
    const take = (line: string) => {
      const item = JSON.parse(line) as { url: string; status: string };
      lines++;
      urls.add(item.url);
      if (item.status === 'completed') completed++;
      if (new URL(item.url).hostname === 'hub.test') hubPages++;
    };
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      const parts = (carry + decoder.decode(chunk, { stream: true })).split('\n');
      carry = parts.pop() ?? '';
      for (const line of parts) if (line) take(line);
    }
    if (carry.trim()) take(carry);
    return {
      http_status: res.status,
      lines,
      distinct_urls: urls.size,
      completed,
      hub_pages: hubPages,
      mb: round(bytes / 1048576, 1),
      seconds: round((performance.now() - started) / 1000, 1),
      app_rss_before_mb: round(rssBefore),
      app_rss_peak_during_mb: round(peak),
    };
  } finally {
    clearInterval(timer);
  }
}

/** Pages per second in each whole minute of the crawl, from the samples (the restart's gap included). */
function perMinute(samples: Sample[]): Array<{ minute: number; pages_per_s: number }> {
  const out: Array<{ minute: number; pages_per_s: number }> = [];
  for (let m = 1; ; m++) {
    const end = samples.find((s) => s.t_s >= m * 60);
    // The first sample is taken a moment after the start (t ≈ 0.1 s): it opens the first minute.
    const start = m === 1 ? samples[0] : [...samples].reverse().find((s) => s.t_s <= (m - 1) * 60);
    if (!end || !start) break;
    out.push({ minute: m, pages_per_s: round((end.pages - start.pages) / (end.t_s - start.t_s)) });
  }
  return out;
}

async function main(): Promise<void> {
  assertBuilt();
  const [l1, l5, l15] = loadavg();
  const maxPages = TREE_PAGES + 1;
  const perHost = Math.ceil(TREE_PAGES / HOSTS);
  const site = await startBenchSite();
  site.configure({ size: perHost, delayMs: 0, hostInTitle: true });
  const models = await startModelServer();
  const env = baseEnv('*.test=127.0.0.1', {
    GLEANER_CRAWL_MAX_PAGES: String(Math.max(100_000, maxPages)),
    GLEANER_PAGE_WORKERS: String(CONCURRENCY),
    LOG_LEVEL: 'warn',
  });
  let app = await startEmbeddedApp(env);
  const dataDir = app.dataDir;
  const started = Date.now();
  const samples: Sample[] = [];
  let processNo = 1;
  let kill: Record<string, number> | null = null;
  const log = (message: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(6)} s] ${message}`);
  try {
    const id = await startCrawl(app.url, {
      url: site.url('hub.test', `/?from=1&to=${HOSTS}`),
      options: { max_depth: 10, max_pages: maxPages, concurrency: CONCURRENCY, same_domain_only: false, fetch_mode: 'static' },
      llm_config: llmConfig(models.openaiBaseUrl),
    });
    log(`crawl ${id}: ${maxPages} pages over ${HOSTS} hosts, data in ${dataDir}`);
    let sampledAt = 0;
    let lastLog = 0;
    let view: JobView;
    for (;;) {
      let killed = false;
      view = await waitJob(app.url, id, {
        everyMs: 500,
        timeoutMs: 6 * 3_600_000,
        onPoll: async (v) => {
          models.reset();
          const now = Date.now();
          if (now - sampledAt >= 10_000) {
            sampledAt = now;
            samples.push({
              t_s: round((now - started) / 1000),
              pages: v.page_count + v.failed_count,
              rss_mb: round(procStatusMb(app.proc.pid, 'VmRSS') ?? NaN),
              heap_used_mb: await heapUsedMb(app).catch(() => NaN),
              process: processNo,
            });
          }
          if (now - lastLog > 60_000) {
            lastLog = now;
            log(
              `${v.page_count} pages, ${v.failed_count} failed, RSS ${samples.at(-1)?.rss_mb} MB, heap ${samples.at(-1)?.heap_used_mb} MB`,
            );
          }
          if (!kill && KILL_AT > 0 && v.status === 'running' && v.page_count >= maxPages * KILL_AT) {
            const answeredBefore = [...site.answered.values()].reduce((n, a) => n + a.length, 0);
            app.proc.child.kill('SIGKILL');
            await app.proc.exited;
            kill = { at_s: round((Date.now() - started) / 1000), pages_done: v.page_count, site_answers_before: answeredBefore };
            log(`killed -9 at ${v.page_count} pages; starting again on the same data directory`);
            killed = true;
            throw new Error('killed');
          }
        },
      }).catch((error: unknown) => {
        if (killed) return null as unknown as JobView;
        throw error;
      });
      if (!killed) break;
      const restartStarted = Date.now();
      app = await startEmbeddedApp(env, [], dataDir);
      processNo++;
      kill = { ...kill!, restart_healthy_s: round((Date.now() - restartStarted) / 1000, 1) };
      // The crawl is taken up again from the store; progress is measured until the job ends.
      const resumed = await job(app.url, id);
      log(`restarted: the crawl is ${resumed.status} at ${resumed.page_count} pages`);
    }
    const wall = (Date.now() - started) / 1000;
    log(`crawl ended ${view.status}: ${view.page_count} pages, ${view.failed_count} failed in ${round(wall)} s`);
    await sleep(1000);
    const answered = [...site.answered.values()].reduce((n, a) => n + a.length, 0);
    const heapEnd = await heapUsedMb(app).catch(() => NaN);
    const rssEnd = procStatusMb(app.proc.pid, 'VmRSS') ?? NaN;
    const dataBytes = dirBytes(dataDir);
    log('reading the results back, then the crawl map');
    const results = await readResults(app, id);
    const mapPaged = await pagedReads(app, id, view.page_count, view.page_count);
    const mapWhole = await fullRead(app, id);
    const minutes = perMinute(samples);
    // The live heap per tenth of the crawl: the lowest heap-in-use sampled (just after a major collection).
    const tenths = Array.from({ length: 10 }, (_, i) => {
      const from = (maxPages * i) / 10;
      const to = (maxPages * (i + 1)) / 10;
      const inTenth = samples.filter((s) => s.pages >= from && s.pages < to);
      return {
        tenth: i + 1,
        heap_floor_mb: inTenth.length ? Math.min(...inTenth.map((s) => s.heap_used_mb).filter(Number.isFinite)) : null,
        rss_max_mb: inTenth.length ? Math.max(...inTenth.map((s) => s.rss_mb)) : null,
      };
    });
    const everyPageOnce =
      view.status === 'completed' && view.page_count === maxPages && results.distinct_urls === maxPages && results.lines === maxPages;
    const result = {
      benchmark: 'million: one durable embedded crawl, kill -9 and restart inside it (npm run bench:million)',
      date: new Date().toISOString(),
      machine: {
        cpu: cpus()[0]?.model,
        cores: cpus().length,
        memory_gb: round(totalmem() / 1024 ** 3),
        load_average_at_start: { '1m': round(l1, 2), '5m': round(l5, 2), '15m': round(l15, 2) },
        load_average_at_end: loadavg().map((x) => round(x, 2)),
        node: process.version,
      },
      setup: {
        pages: maxPages,
        hosts: HOSTS,
        pages_per_host: perHost,
        concurrency: CONCURRENCY,
        site: 'hub.test → h1..hN.test, each a generated tree (~5 KB pages, ten child links + Home), answering at once',
        gleaner: `embedded, built app (dist) as a process; GLEANER_CRAWL_MAX_PAGES=${Math.max(100_000, maxPages)}, GLEANER_PAGE_WORKERS=${CONCURRENCY}; archive on, provenance default, instant model`,
        kill_at_fraction: KILL_AT,
      },
      every_page_once: everyPageOnce,
      crawl: {
        status: view.status,
        pages: view.page_count,
        failed: view.failed_count,
        wall_s: round(wall),
        pages_per_s: round(view.page_count / wall),
        site_answers: answered,
        // Tree pages answered more than once: the site's answers against the tree pages the crawl ended with.
        pages_fetched_again: answered - (view.page_count + view.failed_count - results.hub_pages),
      },
      kill,
      memory: {
        rss_end_mb: round(rssEnd),
        heap_used_end_mb: heapEnd,
        per_tenth: tenths,
      },
      data_dir: { bytes: dataBytes, bytes_per_page: round(dataBytes / Math.max(1, view.page_count)) },
      results_read_back: results,
      crawl_map: { paged: mapPaged, whole: mapWhole },
      pages_per_s_per_minute: minutes,
      samples: samples.filter((_, i) => i % 6 === 0 || i === samples.length - 1),
    };
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    log(`written ${OUT}; every page once: ${everyPageOnce}`);
    if (!everyPageOnce) process.exitCode = 1;
  } finally {
    await app.close().catch(() => undefined);
    await models.close();
    await site.close();
    killAll();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});
