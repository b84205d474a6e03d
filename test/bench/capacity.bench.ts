/**
 * npm run bench:capacity [-- <run> …] — what one crawled page costs, measured from outside the built apps,
 * for the sizing guide (docs/capacity.md). Writes bench-results/capacity.json (runs not chosen keep their
 * previous numbers; the per-page summary and the projection are recomputed from whatever is there).
 *
 * Runs (each its own fresh processes; idle → crawl → read phases, test/bench/capacity/phases.ts):
 *   embedded        one process on SQLite: CPU, disk writes, model calls and tokens per page
 *   embedded_sql    the same with SQLite statements counted (test/bench/crawl/count-sqlite.cjs; its CPU is not used)
 *   cluster_1       API + 1 crawler on Redis and the MongoDB-wire test server behind a counting proxy:
 *                   CPU per process, store commands and bytes, Redis commands and bytes per page
 *   cluster_2       the same with 2 crawlers (per-page costs do not depend on the replica count; per-replica background does)
 *   cluster_1_large pages with 8× the text: how the costs grow with the page
 *   embedded_real / cluster_1_real  real-sized pages: 50–150 KB with a real page's markup (crawl/real-markup.ts)
 *   crawlee_peer / crawlee_peer_real  raw Crawlee (CheerioCrawler) on the same pages: the CPU target's peer
 *   latency_8 / latency_24  pages that take ~1 s (site 300 ms + model 700 ms) with 8 or 24 page workers:
 *                   a replica's pages/s is bounded by page workers / page latency before CPU
 *   latency_3s_8 / latency_3s_24  the same with a 3 s model (300 pages)
 *   features (feature_base, feature_dedup, feature_auth, feature_proxies, feature_lists)  cluster_1 with one feature
 *                   on, against a base run of the same invocation: what each feature adds to a page's store and Redis
 *                   commands (capacity/features.ts). Named only (not in a run of everything); written to
 *                   bench-results/capacity-features.json, and capacity.json is then left as it is.
 *
 * `npm run bench:capacity -- report` runs nothing and rewrites the summary and the projection from the runs
 * in the file (after a change of an assumption or a published figure in capacity/projection.ts).
 * Both then render docs/capacity.md from capacity/capacity.md.tmpl and the file (capacity/render-doc.ts).
 *
 * Knobs: BENCH_CAPACITY_HOSTS (100), BENCH_CAPACITY_PAGES_PER_HOST (20), BENCH_CAPACITY_IDLE_S (15).
 * Every process started is killed on the way out (test/bench/crawl/procs.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { startModelServer } from '../fixtures/model-server';
import { FEATURE_BASE, featureRuns, summariseFeatures } from './capacity/features';
import { summarise } from './capacity/summary';
import { project } from './capacity/projection';
import { writeCapacityDoc } from './capacity/render-doc';
import { clusterRun, embeddedRun, type RunResult, type Workload } from './capacity/runs';
import type { BenchContext } from './crawl/context';
import { envNumber } from './crawl/context';
import { assertBuilt, ROOT } from './crawl/gleaner';
import { crawleeRun } from './crawl/overhead';
import { killAll, round } from './crawl/procs';
import { startBenchSite } from './crawl/site';

const OUT = join(ROOT, 'bench-results', 'capacity.json');
/** `BENCH_CAPACITY_FEATURES_FILE`: another file for the feature runs (two invocations at once must not share one). */
const FEATURES_OUT = process.env.BENCH_CAPACITY_FEATURES_FILE ?? join(ROOT, 'bench-results', 'capacity-features.json');

const HOSTS = envNumber('BENCH_CAPACITY_HOSTS', 100);
const PAGES_PER_HOST = envNumber('BENCH_CAPACITY_PAGES_PER_HOST', 20);

const base: Workload = {
  hosts: HOSTS,
  pagesPerHost: PAGES_PER_HOST,
  pageBytes: 4000,
  siteDelayMs: 20,
  model: 'gpt-4o-mini',
  concurrency: 32,
  env: { GLEANER_PAGE_WORKERS: '16' },
};
const latency = (workers: number, modelMs = 700, hosts = 200): Workload => ({
  hosts,
  pagesPerHost: 3,
  pageBytes: 4000,
  siteDelayMs: 300,
  model: `slow-${modelMs}`,
  concurrency: 32,
  env: { GLEANER_PAGE_WORKERS: String(workers) },
});

/**
 * The peer of the CPU target (issue 37: crawler CPU per page ≤ 1.5× raw Crawlee's): a plain CheerioCrawler
 * (test/bench/crawl/crawlee-child.ts) on the same pages in the same run, one host of hosts × pagesPerHost
 * pages (it follows same-hostname links only), at the workload's concurrency.
 */
async function crawleePeer(ctx: BenchContext, w: Workload): Promise<Record<string, unknown>> {
  const pages = w.hosts * w.pagesPerHost;
  ctx.site.configure({ size: pages, delayMs: w.siteDelayMs, bytes: w.pageBytes, hostInTitle: true, realMarkup: w.realMarkup === true });
  const seed = ctx.site.url('127.0.0.1', '/');
  await fetch(seed).then((r) => r.text());
  const run = await crawleeRun(ctx, 1, seed, w.concurrency, pages);
  return { deployment: 'crawlee', workload: w, ...run };
}

type Runner = (ctx: BenchContext) => Promise<RunResult | Record<string, unknown>>;
const RUNS: Record<string, Runner> = {
  embedded: (ctx) => embeddedRun(ctx, base),
  embedded_sql: async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-capacity-sql-'));
    try {
      return await embeddedRun(ctx, base, { script: join(__dirname, 'crawl', 'count-sqlite.cjs'), file: join(dir, 'counts.json') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  cluster_1: (ctx) => clusterRun(ctx, base, 1),
  cluster_2: (ctx) => clusterRun(ctx, base, 2),
  cluster_1_large: (ctx) => clusterRun(ctx, { ...base, pageBytes: 32_000 }, 1),
  // Real-sized pages (50–150 KB with a real page's markup, issue 37): compression, conversion and grounding weigh more.
  embedded_real: (ctx) => embeddedRun(ctx, { ...base, realMarkup: true }),
  cluster_1_real: (ctx) => clusterRun(ctx, { ...base, realMarkup: true }, 1),
  crawlee_peer: (ctx) => crawleePeer(ctx, base),
  crawlee_peer_real: (ctx) => crawleePeer(ctx, { ...base, realMarkup: true }),
  latency_8: (ctx) => clusterRun(ctx, latency(8), 1),
  latency_24: (ctx) => clusterRun(ctx, latency(24), 1),
  // A slow model (3 s): waiting is most of a page's life, so whatever costs CPU while waiting shows most.
  latency_3s_8: (ctx) => clusterRun(ctx, latency(8, 3000, 100), 1),
  latency_3s_24: (ctx) => clusterRun(ctx, latency(24, 3000, 100), 1),
};

/** What the features file says of its runs. */
const FEATURE_NOTES = [
  'These runs are made at nice -n 19 beside other work: CPU and pages/s depend on the load and are not summarised (runs.<run>.crawl.procs has the CPU as measured).',
  "own_per_page: the commands of the store collections only the feature uses, counted exactly. run_delta_per_page: the feature's run less the base run, per completed page; it also moves with the crawl's duration (a crawl's per-second work: the client's job polls, leases, progress, queue polls), see crawl_seconds.",
];

/** The per-feature runs (capacity/features.ts): named, or all of them as `features`. */
const FEATURE_RUNS: Record<string, Runner> = featureRuns(base);

function machine() {
  const [l1, l5, l15] = loadavg();
  return {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memory_gb: round(totalmem() / 1024 ** 3),
    free_memory_gb_at_start: round(freemem() / 1024 ** 3),
    load_average_at_start: { '1m': round(l1, 2), '5m': round(l5, 2), '15m': round(l15, 2) },
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

async function main(): Promise<void> {
  const reportOnly = process.argv.slice(2).includes('report');
  const args = process.argv
    .slice(2)
    .filter((a) => a !== 'report')
    .flatMap((a) => (a === 'features' ? Object.keys(FEATURE_RUNS) : [a]));
  const unknown = args.filter((a) => !(a in RUNS) && !(a in FEATURE_RUNS));
  if (unknown.length > 0) {
    console.error(
      `unknown run(s): ${unknown.join(', ')}; choose from ${[...Object.keys(RUNS), 'features', ...Object.keys(FEATURE_RUNS)].join(', ')}`,
    );
    process.exit(2);
  }
  const chosen = reportOnly ? [] : args.length > 0 ? args : Object.keys(RUNS);
  const capacityChosen = reportOnly || chosen.some((name) => name in RUNS);
  const featuresChosen = chosen.some((name) => name in FEATURE_RUNS) || (reportOnly && existsSync(FEATURES_OUT));
  if (!reportOnly) assertBuilt(); // report runs nothing
  const previous = existsSync(OUT)
    ? (JSON.parse(readFileSync(OUT, 'utf8')) as { runs?: Record<string, unknown>; date?: string; machine?: unknown })
    : {};
  const runs: Record<string, unknown> = { ...(previous.runs ?? {}) };
  const previousFeatures = existsSync(FEATURES_OUT)
    ? (JSON.parse(readFileSync(FEATURES_OUT, 'utf8')) as { runs?: Record<string, unknown>; machine?: unknown; notes?: string[] })
    : {};
  const features: Record<string, unknown> = { ...(previousFeatures.runs ?? {}) };
  const writeFeatures = () => {
    const result = {
      benchmark: `capacity, per feature: what each feature adds to a crawled page's store and Redis commands (npm run bench:capacity -- features; ${FEATURE_BASE} is cluster_1's workload)`,
      machine: reportOnly ? previousFeatures.machine : machine(),
      notes: [
        ...FEATURE_NOTES,
        // Notes added to the file by hand (how a run was made) stay through `report`.
        ...(reportOnly ? (previousFeatures.notes ?? []).filter((n) => !FEATURE_NOTES.includes(n)) : []),
      ],
      runs: features,
      summary: summariseFeatures(features),
    };
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(FEATURES_OUT, `${JSON.stringify(result, null, 2)}\n`);
  };
  const write = () => {
    if (featuresChosen) writeFeatures();
    if (!capacityChosen) return;
    const summary = summarise(runs as Record<string, RunResult>);
    const result = {
      benchmark: 'capacity: what one crawled page costs, per process and per backing service (npm run bench:capacity)',
      date: reportOnly ? previous.date : new Date().toISOString(),
      machine: reportOnly ? previous.machine : machine(),
      setup: {
        site: 'hub.test links h1.test … hN.test (→ 127.0.0.1); each host a tree of pages with ~pageBytes of article text and 10 child links',
        apps: 'the built apps (dist/) as processes, the crawl benchmark harness (test/bench/crawl/gleaner.ts); fetch_mode static, archive on (default), instant model unless named',
        phases:
          'idle (apps up, nothing asked) → crawl (POST /crawl to completed; the client polls GET /jobs/{id} once a second) → read (GET /jobs/{id}/results?format=jsonl once)',
        store_counting:
          'cluster: a TCP proxy between the apps and the MongoDB-wire server parses every OP_MSG (command, collection, documents, bytes each way); embedded: node:sqlite statements counted in the process (a separate run)',
        redis_counting:
          'INFO commandstats and total_net_input/output_bytes, diffed (inner commands of Lua scripts counted under their names)',
        cpu: '/proc/<pid>/stat utime+stime per process, and the main thread alone (/proc/<pid>/task/<pid>/stat)',
        per_page: 'phase totals / pages crawled; "net" takes off what the idle phase spent per second × the phase seconds',
      },
      runs,
      summary,
      projection: project(summary),
    };
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
  };
  // The guide follows the file; a file it cannot be rendered from (a run missing, a conclusion of its
  // text no longer true) fails the benchmark and leaves the guide as it was, for test/docs to notice.
  const renderDoc = (): boolean => {
    try {
      console.log(`rewrote ${writeCapacityDoc(ROOT)}`);
      return true;
    } catch (error) {
      console.error(`docs/capacity.md not rewritten: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  };
  if (reportOnly) {
    write();
    console.log(`rewrote the summary and the projection of ${OUT}`);
    if (!renderDoc()) process.exitCode = 1;
    return;
  }
  const started = Date.now();
  const site = await startBenchSite();
  const models = await startModelServer();
  const ctx: BenchContext = {
    site,
    models,
    notes: [],
    log: (message) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${message}`),
  };
  let failed = false;
  try {
    for (const name of chosen) {
      ctx.log(`== ${name}`);
      const loadAtStart = loadavg()[0];
      try {
        const run = await (RUNS[name] ?? FEATURE_RUNS[name])(ctx);
        (name in RUNS ? runs : features)[name] = { date: new Date().toISOString(), load_average_at_start: round(loadAtStart, 2), ...run };
        if ('job' in run) {
          const measured = run as RunResult;
          ctx.log(`   ${measured.job.pages} pages, ${measured.pages_per_s} pages/s, crawl phase ${measured.crawl.seconds} s`);
        } else ctx.log(`   ${String(run.pages)} pages, ${String(run.pages_per_s)} pages/s, ${String(run.cpu_ms_per_page)} ms CPU a page`);
      } catch (error) {
        failed = true;
        console.error(error);
        (name in RUNS ? runs : features)[name] = {
          date: new Date().toISOString(),
          error: error instanceof Error ? error.message : String(error),
        };
      }
      write(); // after each run: a failure later keeps what was measured
    }
  } finally {
    await site.close();
    await models.close();
    killAll();
  }
  if (capacityChosen) ctx.log(`wrote ${OUT}`);
  if (featuresChosen) ctx.log(`wrote ${FEATURES_OUT}`);
  if (!renderDoc()) failed = true;
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});
