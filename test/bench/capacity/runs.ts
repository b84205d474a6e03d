/**
 * The runs of the capacity benchmark: the built apps as real processes (test/bench/crawl/gleaner.ts),
 * embedded (one process on SQLite) or cluster (API + N crawlers on Redis and the MongoDB-wire test server,
 * the store behind a counting proxy), each crawling the benchmark site through idle → crawl → read phases.
 */
import { readdirSync, statSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import type { BenchContext } from '../crawl/context';
import { KEY, baseEnv, llmConfig, startBacking, startCluster, startCrawl, startEmbeddedApp, job, type JobView } from '../crawl/gleaner';
import { sleep, type Proc } from '../crawl/procs';
import { startMongoWireCounter } from './mongo-wire-counter';
import { PhaseRecorder, type Phase } from './phases';
import { ProcMeter } from './proc-meter';
import { RedisStats } from './redis-stats';

export interface Workload {
  /** Hosts h1.test … hN.test, each a tree of `pagesPerHost` pages, linked from one hub page. */
  hosts: number;
  pagesPerHost: number;
  /** Bytes of article text on each page (the site's filler). */
  pageBytes: number;
  /** Pages of 50–150 KB with a real page's markup (test/bench/crawl/real-markup.ts) instead of `pageBytes` of text. */
  realMarkup?: boolean;
  /** Every page answer waits this long. */
  siteDelayMs: number;
  /** The model id on the local model server (`slow-<ms>` answers after that many ms). */
  model: string;
  /** The crawl's `concurrency` option. */
  concurrency: number;
  /** Extra environment for the apps (GLEANER_PAGE_WORKERS, …). */
  env?: Record<string, string>;
  /** More crawl options (a feature turned on: `dedupe`, `proxy`, …), beside the run's own. */
  crawlOptions?: Record<string, unknown>;
  /** The crawl's schema instead of the harness's (a list schema). */
  schema?: Record<string, unknown>;
}

/** What a run does between the apps' start and its phases (an auth profile created): more crawl options. */
export type BeforeCrawl = (apiUrl: string) => Promise<Record<string, unknown>>;

export interface RunResult {
  deployment: 'embedded' | 'cluster';
  crawlers: number;
  workload: Workload;
  job: { status: string; pages: number; failed: number; token_usage_input: number; token_usage_output: number };
  pages_per_s: number;
  /** Pages/s between 10 % and 90 % of the pages (from the once-a-second polls). */
  steady_pages_per_s: number | null;
  results_read: { items: number; bytes: number };
  idle: Phase;
  crawl: Phase;
  read: Phase;
  /** Embedded only: what DATA_DIR holds after the crawl, per top-level entry (bytes). */
  data_dir_bytes?: Record<string, number>;
}

const IDLE_S = Number(process.env.BENCH_CAPACITY_IDLE_S ?? 15);

/** The error with the error lines the apps logged (what a failed run needs to be understood). */
function withLogs(error: unknown, procs: Proc[]): Error {
  const warned = procs.flatMap((p) => p.watched.filter((l) => /"level":(40|50|60)/.test(l)).map((l) => `${p.name}: ${l}`));
  // Nothing logged as a warning or error (a process that died, or failed outside its logger): its last lines and how it ended.
  const lines =
    warned.length > 0
      ? warned
      : procs.flatMap((p) => [
          `${p.name}: exit code ${String(p.child.exitCode)}, signal ${String(p.child.signalCode)}`,
          ...p.lines.slice(-10).map((l) => `${p.name}: ${l}`),
        ]);
  const message = error instanceof Error ? error.message : String(error);
  return new Error(lines.length > 0 ? `${message}\n${lines.slice(-20).join('\n')}` : message, { cause: error });
}

function duBytes(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((sum, name) => sum + duBytes(join(path, name)), 0);
}

function appEnv(ctx: BenchContext, w: Workload): Record<string, string> {
  return baseEnv('*.test=127.0.0.1', { GLEANER_MAX_RUNNING_CRAWLS_PER_USER: '10', ...w.env });
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * GET /jobs/{id} once a second to a terminal status. A poll that fails at the socket (a keep-alive
 * connection the server closed as the request left, on a loaded machine) is tried again, up to 5 times
 * in a row: the read is idempotent, and an API that is really gone still fails the run.
 */
async function pollJob(base: string, id: string, progress: Array<{ t: number; pages: number }>, timeoutMs = 3_600_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  let failures = 0;
  for (;;) {
    let view: JobView | undefined;
    try {
      view = await job(base, id);
      progress.push({ t: Date.now(), pages: view.page_count });
      failures = 0;
    } catch (error) {
      if (++failures > 5) throw error;
    }
    if (view && TERMINAL.has(view.status)) return view;
    if (Date.now() > deadline) throw new Error(`crawl ${id} still ${view?.status} after the deadline`);
    await sleep(1000);
  }
}

/** POST /crawl over the workload's hosts, then polls the job once a second to its end. */
/** Pages/s between 10 % and 90 % of the pages (the ramp-up and the tail left out). */
function steadyRate(progress: Array<{ t: number; pages: number }>, total: number): number | null {
  const at = (fraction: number) => progress.find((p) => p.pages >= total * fraction);
  const from = at(0.1);
  const to = at(0.9);
  if (!from || !to || to.t <= from.t) return null;
  return Math.round(((to.pages - from.pages) / ((to.t - from.t) / 1000)) * 10) / 10;
}

async function crawl(
  ctx: BenchContext,
  base: string,
  w: Workload,
  more: Record<string, unknown> = {},
): Promise<{ id: string; view: JobView; seconds: number; steady: number | null }> {
  const started = Date.now();
  const id = await startCrawl(base, {
    url: ctx.site.url('hub.test', `/?from=1&to=${w.hosts}`),
    options: {
      same_domain_only: false,
      max_depth: 10,
      max_pages: 100_000,
      concurrency: w.concurrency,
      fetch_mode: 'static',
      ...w.crawlOptions,
      ...more,
    },
    llm_config: llmConfig(ctx.models.openaiBaseUrl, w.model),
    ...(w.schema ? { schema: w.schema } : {}),
  });
  const progress: Array<{ t: number; pages: number }> = [];
  const view = await pollJob(base, id, progress);
  if (view.status !== 'completed') throw new Error(`the crawl ended ${view.status}: ${view.error_message}`);
  return { id, view, seconds: (Date.now() - started) / 1000, steady: steadyRate(progress, view.page_count) };
}

/**
 * Every result of the job as JSON lines, read once (what a client exporting a crawl does), on a connection of its own:
 * the crawl phase's end counts the prompts' tokens for up to a minute on this (the client's) event loop, long enough
 * for the server to close the polls' idle keep-alive connection unseen, and a pooled `fetch` would then send the read
 * on a socket that is already closed ("other side closed").
 */
async function readResults(base: string, id: string): Promise<{ items: number; bytes: number }> {
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = httpGet(
      `${base}/api/v1/jobs/${id}/results?format=jsonl`,
      { agent: false, headers: { authorization: `Bearer ${KEY}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    request.on('error', reject);
  });
  if (status !== 200) throw new Error(`GET /jobs/${id}/results answered ${status}: ${text.slice(0, 300)}`);
  return { items: text.split('\n').filter((l) => l.trim() !== '').length, bytes: Buffer.byteLength(text) };
}

function jobFacts(view: JobView & { token_usage_input?: number; token_usage_output?: number }): RunResult['job'] {
  return {
    status: view.status,
    pages: view.page_count,
    failed: view.failed_count,
    token_usage_input: view.token_usage_input ?? 0,
    token_usage_output: view.token_usage_output ?? 0,
  };
}

async function phases(
  ctx: BenchContext,
  recorder: PhaseRecorder,
  base: string,
  w: Workload,
  more: Record<string, unknown> = {},
): Promise<Pick<RunResult, 'job' | 'pages_per_s' | 'steady_pages_per_s' | 'results_read' | 'idle' | 'crawl' | 'read'>> {
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };
  await recorder.start();
  await sleep(IDLE_S * 1000);
  const idle = await recorder.end();
  const run = await step('crawl', () => crawl(ctx, base, w, more));
  const crawlPhase = await recorder.end();
  const read = await step('reading the results', () => readResults(base, run.id));
  const readPhase = await recorder.end();
  return {
    job: jobFacts(run.view),
    pages_per_s: Math.round((run.view.page_count / run.seconds) * 10) / 10,
    steady_pages_per_s: run.steady,
    results_read: read,
    idle,
    crawl: crawlPhase,
    read: readPhase,
  };
}

/**
 * The embedded app: one process. With `sqlCounter` (test/bench/crawl/count-sqlite.cjs preloaded) it also
 * counts SQLite statements; that instrumentation costs CPU, so CPU figures come from a run without it.
 */
export async function embeddedRun(ctx: BenchContext, w: Workload, sqlCounter?: { script: string; file: string }): Promise<RunResult> {
  ctx.site.clearLog();
  ctx.site.configure({
    size: w.pagesPerHost,
    delayMs: w.siteDelayMs,
    bytes: w.pageBytes,
    hostInTitle: true,
    realMarkup: w.realMarkup === true,
  });
  ctx.models.reset();
  const env = { ...appEnv(ctx, w), ...(sqlCounter ? { BENCH_SQL_COUNTS_FILE: sqlCounter.file } : {}) };
  const app = await startEmbeddedApp(env, sqlCounter ? ['--require', sqlCounter.script] : []);
  try {
    const recorder = new PhaseRecorder({
      meter: new ProcMeter({ app: app.proc.pid }),
      models: ctx.models,
      sqlCountsFile: sqlCounter?.file,
    });
    const measured = await phases(ctx, recorder, app.url, w).catch((error: unknown) => {
      throw withLogs(error, [app.proc]);
    });
    const dataDir = Object.fromEntries(readdirSync(app.dataDir).map((name) => [name, duBytes(join(app.dataDir, name))]));
    return { deployment: 'embedded', crawlers: 0, workload: w, ...measured, data_dir_bytes: dataDir };
  } finally {
    await app.close();
  }
}

/**
 * API + `crawlers` crawler processes on a fresh Redis and MongoDB-wire server; the store is reached through the counting proxy.
 * `beforeCrawl` runs once the apps are up, before the idle phase (its requests are not counted in any phase).
 */
export async function clusterRun(ctx: BenchContext, w: Workload, crawlers: number, beforeCrawl?: BeforeCrawl): Promise<RunResult> {
  ctx.site.clearLog();
  ctx.site.configure({
    size: w.pagesPerHost,
    delayMs: w.siteDelayMs,
    bytes: w.pageBytes,
    hostInTitle: true,
    realMarkup: w.realMarkup === true,
  });
  ctx.models.reset();
  const backing = await startBacking();
  try {
    const counter = await startMongoWireCounter(backing.mongo.url);
    const redis = new RedisStats(backing.redis.url);
    try {
      const cluster = await startCluster({ ...backing, mongo: { ...backing.mongo, url: counter.url } }, crawlers, appEnv(ctx, w));
      try {
        const pids: Record<string, number> = {
          api: cluster.api.proc.pid,
          ...Object.fromEntries(cluster.crawlers.map((c) => [c.proc.name, c.proc.pid])),
          redis: backing.redis.pid,
          mongo_wire: backing.mongo.pid,
        };
        const more = beforeCrawl ? await beforeCrawl(cluster.api.url) : {};
        const recorder = new PhaseRecorder({ meter: new ProcMeter(pids), models: ctx.models, mongo: counter, redis });
        const measured = await phases(ctx, recorder, cluster.api.url, w, more).catch((error: unknown) => {
          throw withLogs(error, [cluster.api.proc, ...cluster.crawlers.map((c) => c.proc)]);
        });
        return { deployment: 'cluster', crawlers, workload: w, ...measured };
      } finally {
        await cluster.close();
      }
    } finally {
      await redis.close();
      await counter.close();
    }
  } finally {
    await backing.close();
  }
}
