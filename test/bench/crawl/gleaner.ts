/**
 * Gleaner under benchmark: the built apps (dist/) as real processes, embedded (one process) or
 * cluster (API + crawler processes on a Redis and the MongoDB-wire test server started here), and a
 * small client for the crawl endpoints.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startMongoWire, startRedis, type StartedServer } from '../../harness/servers';
import { registerPid, sleep, spawnProc, type Proc } from './procs';

export const ROOT = join(__dirname, '..', '..', '..');
export const API_MAIN = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
export const CRAWLER_MAIN = join(ROOT, 'dist', 'apps', 'crawler', 'src', 'main.js');
export const KEY = 'glk_' + 'B'.repeat(20) + 'b'.repeat(20);
const SECRET = 'bench-crawl-secret-0123456789abcdefgh';

export function assertBuilt(): void {
  if (!existsSync(API_MAIN) || !existsSync(CRAWLER_MAIN)) throw new Error('dist/ is missing: run `npm run build` first');
}

/** Lines the benchmark reads from the apps' logs (ownership of crawls, failures). */
const WATCH = /crawl owned|crawl finished|"level":(50|60)|error/i;

export interface AppHandle {
  url: string;
  proc: Proc;
}

/** How long an app may take to answer /health (BENCH_HEALTH_S, default 180 s: a loaded shared machine starts Nest slowly). */
const HEALTH_S = Number(process.env.BENCH_HEALTH_S ?? 180);

async function waitHealthy(proc: Proc, url: string): Promise<void> {
  for (let i = 0; i < HEALTH_S * 10; i++) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited (${proc.child.exitCode}):\n${proc.lines.join('\n')}`);
    if ((await fetch(`${url}/health`).catch(() => null))?.ok) return;
    await sleep(100);
  }
  throw new Error(`${proc.name} did not become healthy:\n${proc.lines.join('\n')}`);
}

async function startApp(
  name: string,
  main: string,
  args: string[],
  env: Record<string, string>,
  portVar: 'PORT' | 'CRAWLER_PORT',
  nodeArgs: string[] = [],
): Promise<AppHandle> {
  const port = await freePort();
  const proc = spawnProc(name, process.execPath, [...nodeArgs, main, ...args], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env, [portVar]: String(port) },
    watch: WATCH,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(proc, url);
  return { url, proc };
}

/** Environment every benchmark app gets: loopback sites allowed, no browser, no API rate limit in the way. */
export function baseEnv(resolve: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    GLEANER_BOOTSTRAP_KEY: KEY,
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_LLM_RETRIES: '0',
    ...extra,
  };
}

export interface Embedded extends AppHandle {
  dataDir: string;
  close(): Promise<void>;
}

/** `dataDir`: an existing data directory (a restart after a kill keeps its crawl); by default a new one. */
export async function startEmbeddedApp(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  dataDir = mkdtempSync(join(tmpdir(), 'gleaner-bench-crawl-')),
): Promise<Embedded> {
  let app: AppHandle;
  try {
    app = await startApp('embedded', API_MAIN, [], { ...env, DATA_DIR: dataDir }, 'PORT', nodeArgs);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true }); // an app that never came up leaves no data behind
    throw error;
  }
  return {
    ...app,
    dataDir,
    async close() {
      await app.proc.stop('SIGTERM', 15_000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Backing {
  redis: StartedServer;
  mongo: StartedServer;
  close(): Promise<void>;
}

/** Redis and the MongoDB-wire server, registered for clean-up on any exit. */
export async function startBacking(): Promise<Backing> {
  const redis = await startRedis();
  const unRedis = registerPid(redis.pid);
  let mongo: StartedServer;
  try {
    mongo = await startMongoWire();
  } catch (error) {
    await redis.stop();
    unRedis();
    throw error;
  }
  const unMongo = registerPid(mongo.pid);
  return {
    redis,
    mongo,
    async close() {
      await redis.stop();
      unRedis();
      await mongo.stop();
      unMongo();
    },
  };
}

export interface Cluster {
  api: AppHandle;
  crawlers: AppHandle[];
  close(): Promise<void>;
}

let dbSerial = 0;

/**
 * Node options for the crawler processes only (BENCH_CRAWLER_NODE_ARGS, space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a crawler's CPU goes in a run.
 */
const CRAWLER_NODE_ARGS = (process.env.BENCH_CRAWLER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

/** A cluster on the given Redis and MongoDB-wire: one API process and `crawlers` crawler processes, each on a fresh database. */
export async function startCluster(backing: Backing, crawlers: number, env: Record<string, string>): Promise<Cluster> {
  const db = `bench_crawl_${process.pid}_${++dbSerial}`;
  const redisDb = (dbSerial % 15) + 1;
  const clusterEnv = {
    ...env,
    MONGODB_URI: `${backing.mongo.url}/${db}`,
    REDIS_URL: `${backing.redis.url}/${redisDb}`,
    GLEANER_SECRET: SECRET,
  };
  const started: AppHandle[] = [];
  const close = async () => {
    await Promise.all(started.map((a) => a.proc.stop('SIGTERM', 15_000)));
  };
  try {
    const api = await startApp('api', API_MAIN, ['--role=api'], clusterEnv, 'PORT');
    started.push(api);
    const list: AppHandle[] = [];
    for (let i = 1; i <= crawlers; i++) {
      const c = await startApp(`crawler-${i}`, CRAWLER_MAIN, [], clusterEnv, 'CRAWLER_PORT', CRAWLER_NODE_ARGS);
      started.push(c);
      list.push(c);
    }
    return { api, crawlers: list, close };
  } catch (error) {
    await close();
    throw error;
  }
}

// ---------------------------------------------------------------- the API

export async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

export const SCHEMA = { name: 'string', price: 'string' };

export function llmConfig(modelBaseUrl: string, model = 'gpt-4o-mini') {
  return { provider: 'openai', model, api_key: 'sk-bench', base_url: modelBaseUrl };
}

export async function startCrawl(base: string, body: Record<string, unknown>): Promise<string> {
  const res = await call(base, 'POST', '/api/v1/crawl', { schema: SCHEMA, ...body });
  if (res.status !== 202) throw new Error(`POST /crawl answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.job_id as string;
}

export interface JobView {
  id: string;
  status: string;
  page_count: number;
  failed_count: number;
  urls_queued: number;
  error_category: string | null;
  error_message: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}

export async function job(base: string, id: string): Promise<JobView> {
  const res = await call(base, 'GET', `/api/v1/jobs/${id}`);
  if (res.status !== 200) throw new Error(`GET /jobs/${id} answered ${res.status}`);
  return res.body as JobView;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Polls a job until it ends; `onPoll` sees every view (progress sampling). */
export async function waitJob(
  base: string,
  id: string,
  opts: { everyMs?: number; timeoutMs?: number; onPoll?: (view: JobView) => void | Promise<void> } = {},
): Promise<JobView> {
  const deadline = Date.now() + (opts.timeoutMs ?? 3_600_000);
  for (;;) {
    const view = await job(base, id);
    await opts.onPoll?.(view);
    if (TERMINAL.has(view.status)) return view;
    if (Date.now() > deadline) throw new Error(`crawl ${id} still ${view.status} after the deadline (${view.page_count} pages)`);
    await sleep(opts.everyMs ?? 100);
  }
}

/** Sum of a Prometheus counter over its label sets, from a /metrics text. */
export async function metricSum(base: string, name: string, labelFilter?: RegExp): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    if (labelFilter && !labelFilter.test(line)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}
