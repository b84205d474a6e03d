/**
 * npm run bench:api — the API's hot path against a bare Fastify anchor (test/bench/api/anchor-server.ts) in
 * the same run, on both deployments (embedded: the built app as one process on SQLite; cluster: the API role
 * and one crawler on the MongoDB-wire test server and Redis). Three routes, each with its anchor:
 *
 * - `GET /api/v1/jobs/{id}` (a finished extract job) — the anchor reads the same job document;
 * - `GET /api/v1/jobs/{id}/results` (its one result) — the anchor queries the same result documents;
 * - `POST /api/v1/extract` with an instant model (the local model server) on a local page, a synchronous
 *   extract (200 with the data) — the anchor does the same minimum work the bare way: the job document
 *   inserted; the page fetched over HTTP (node:http, keep-alive) and stripped to text by regular expressions;
 *   one chat completion with the official `openai` SDK in the app's request shape (system + user message,
 *   strict json_schema); JSON.parse of the answer; the result document inserted; the job's final state in one
 *   update; the data sent. Embedded, all in the server's process; in the cluster, the server LPUSHes the job
 *   id on a Redis list and a second bare process (anchor-worker.ts) BLPOPs it, reads the job, does the work
 *   and pushes the answer back (the server waits on one BLPOP loop of the reply list). Embedded, its SQLite
 *   writes are autocommitted without an fsync each (WAL, synchronous=NORMAL; anchor-store.ts says why). The anchor does
 *   **not** guard the fetch (SSRF/DNS), convert to markdown, validate or retry the answer, ground values,
 *   count cost, keep an event log or stream events, call webhooks, honour idempotency keys, apply a
 *   per-user running-jobs cap, retry a lost job (no lease, no watchdog), or record metrics.
 *
 * autocannon, 50 connections; after a warm-up, BENCH_ROUNDS rounds of BENCH_DURATION s alternate the anchor
 * and the app (the machine is shared: only numbers of one run compare), medians of the rounds. Targets: the
 * app answers ≥ 0.5× the anchor's requests/s with a p99 ≤ 2× the anchor's. Each round also records the CPU
 * milliseconds per request of each side's processes (/proc; the app's API and, in the cluster, its crawler; not
 * the store's or Redis's; less what they spend idle, measured before the rounds), which the machine's load
 * moves far less than req/s. The per-key rate limit is raised
 * for the run (it is still evaluated on every request). BENCH_CPU_PROF=<dir> runs the app processes with
 * --cpu-prof into that directory (test/bench/api/cpu-top.ts summarises a profile).
 * Writes bench-results/api.json; with BENCH_ROUTES naming some routes, the file's other routes keep the
 * numbers of the run that measured them (each route says when: measured_at).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { API_MAIN, CRAWLER_MAIN, ROOT, assertBuilt, startProcess, type AppProcess } from '../e2e/processes';
import { buildTestApp } from '../test-app/build';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { freePort, startMongoWire, startRedis, type StartedServer } from '../harness/servers';

const KEY = 'glk_' + 'B'.repeat(20) + 'b'.repeat(20);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DEPLOYMENTS = (process.env.BENCH_DEPLOYMENTS ?? 'embedded,cluster').split(',') as Deployment[];
const ROUTES = (process.env.BENCH_ROUTES ?? 'job,results,extract').split(',') as RouteName[];
const CPU_PROF = process.env.BENCH_CPU_PROF;
const TARGET_RATIO = 0.5;
const TARGET_P99_RATIO = 2;

type Deployment = 'embedded' | 'cluster';
type RouteName = 'job' | 'results' | 'extract';

interface Round {
  requests_per_s: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
  /** CPU time of the side's processes per answered request (a load-independent cost; the machine is shared). */
  cpu_ms_per_request: number;
  /** The same for the API process alone (in the cluster, without the crawler that runs an extract's job). */
  api_cpu_ms_per_request: number;
}

/** CPU milliseconds (user + system) a process has used so far, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const log = (...parts: unknown[]) => console.log(`[bench:api ${new Date().toISOString().slice(11, 19)}]`, ...parts);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

interface Target {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  /** The processes whose CPU the side spends (the app's: the API and, in the cluster, the crawler). */
  pids: number[];
  backgroundCpuMsPerS: number[];
}

/** CPU ms per second the side's processes spend with no request (timers, queue polling): taken off each round. */
async function backgroundCpu(pids: number[], seconds = 5): Promise<number[]> {
  const before = pids.map(cpuMs);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return pids.map((pid, i) => (cpuMs(pid) - before[i]) / seconds);
}

async function measure(target: Target, duration: number): Promise<Round> {
  const before = target.pids.map(cpuMs);
  const started = Date.now();
  const result = await autocannon({
    url: target.url,
    method: target.method,
    body: target.body,
    connections: CONNECTIONS,
    duration,
    // A synchronous extract on a loaded machine can take longer than autocannon's default 10 s.
    timeout: 60,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  });
  const elapsed = (Date.now() - started) / 1000;
  // Each process's CPU in the round, less what it spends idle.
  const used = target.pids.map((pid, i) => cpuMs(pid) - before[i] - target.backgroundCpuMsPerS[i] * elapsed);
  const perRequest = (ms: number) => Math.round((ms / Math.max(1, result.requests.total)) * 1000) / 1000;
  return {
    requests_per_s: result.requests.average,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors,
    cpu_ms_per_request: perRequest(used.reduce((a, b) => a + b, 0)),
    api_cpu_ms_per_request: perRequest(used[0]),
  };
}

interface Anchor {
  url: string;
  /** The anchor's processes: the server and, in the cluster, its extract worker. */
  children: ChildProcess[];
}

function spawnAnchorPart(file: string, env: Record<string, string>, profileName: string): ChildProcess {
  // BENCH_CPU_PROF profiles the anchor too (into <dir>/anchor), for a side-by-side look at the same work.
  const profile = CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, 'anchor')}`, `--cpu-prof-name=${profileName}-${Date.now()}.cpuprofile`]
    : [];
  return spawn(process.execPath, [...profile, '--import', 'tsx', join(__dirname, 'api', file)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function startAnchor(store: string, redisUrl: string | null): Promise<Anchor> {
  const port = await freePort();
  const env = { ANCHOR_STORE: store, ...(redisUrl ? { ANCHOR_REDIS: redisUrl } : {}) };
  const children = [spawnAnchorPart('anchor-server.ts', { ...env, ANCHOR_PORT: String(port) }, 'server')];
  if (redisUrl) children.push(spawnAnchorPart('anchor-worker.ts', env, 'worker'));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${url}/health`).catch(() => null))?.ok) return { url, children };
    if (children.some((child) => child.exitCode !== null) || i > 600) throw new Error('the anchor server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Stand {
  api: AppProcess;
  pids: number[];
  anchorStore: string;
  /** The cluster's Redis: the anchor hands its extracts to its worker through it. */
  redisUrl: string | null;
  stop(): Promise<void>;
}

async function startStand(deployment: Deployment, play: Playground): Promise<Stand> {
  const env: Record<string, string> = {
    GLEANER_BOOTSTRAP_KEY: KEY,
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: play.resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_MAX_RUNNING_JOBS_PER_USER: '10000',
    GLEANER_WORKER_CONCURRENCY: '64',
    GLEANER_HOST_MAX_CONCURRENCY: '256',
    GLEANER_LLM_RETRIES: '0',
    LOG_LEVEL: 'warn',
    ...(CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF}` } : {}),
  };
  if (deployment === 'embedded') {
    const dataDir = mkdtempSync(join(tmpdir(), 'gleaner-bench-api-'));
    const api = await startProcess('embedded', API_MAIN, [], { ...env, DATA_DIR: dataDir }, 'PORT');
    return {
      api,
      pids: [api.child.pid!],
      anchorStore: `sqlite:${join(dataDir, 'gleaner.db')}`,
      redisUrl: null,
      stop: async () => void (await api.stop()),
    };
  }
  const servers: StartedServer[] = [await startRedis(), await startMongoWire()];
  const [redis, mongo] = servers;
  const clusterEnv = {
    ...env,
    MONGODB_URI: `${mongo.url}/gleaner_bench`,
    REDIS_URL: redis.url,
    GLEANER_SECRET: 'bench-api-secret-0123456789abcdefghij',
  };
  const api = await startProcess('api', API_MAIN, ['--role=api'], clusterEnv, 'PORT');
  const crawler = await startProcess('crawler', CRAWLER_MAIN, [], clusterEnv, 'CRAWLER_PORT');
  return {
    api,
    pids: [api.child.pid!, crawler.child.pid!],
    anchorStore: `${mongo.url}/gleaner_bench`,
    redisUrl: redis.url,
    async stop() {
      await Promise.all([api.stop(), crawler.stop()]);
      for (const server of servers) await server.stop();
    },
  };
}

async function benchDeployment(deployment: Deployment, play: Playground, models: ModelServer) {
  const stand = await startStand(deployment, play);
  try {
    const extractBody = JSON.stringify({
      url: play.url('shop.test', '/product/7'),
      schema: { name: 'string', price: 'string', sku: 'string' },
      fetch_mode: 'static',
      llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-bench', base_url: models.openaiBaseUrl },
    });
    const seeded = await fetch(`${stand.api.url}/api/v1/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: extractBody,
    });
    const job = (await seeded.json()) as { job_id?: string };
    if (seeded.status !== 200 || !job.job_id) throw new Error(`the seeding extract answered ${seeded.status}: ${JSON.stringify(job)}`);
    const anchor = await startAnchor(stand.anchorStore, stand.redisUrl);
    const anchorPids = anchor.children.map((child) => child.pid!);
    try {
      const background = { app: await backgroundCpu(stand.pids), anchor: await backgroundCpu(anchorPids) };
      log(`${deployment}: background CPU ${background.app.join(' + ')} ms/s (app), ${background.anchor.join(' + ')} ms/s (anchor)`);
      const targets = (base: string, pids: number[], backgroundCpuMsPerS: number[]): Record<RouteName, Target> => ({
        job: { url: `${base}/api/v1/jobs/${job.job_id}`, method: 'GET', pids, backgroundCpuMsPerS },
        results: { url: `${base}/api/v1/jobs/${job.job_id}/results`, method: 'GET', pids, backgroundCpuMsPerS },
        extract: { url: `${base}/api/v1/extract`, method: 'POST', body: extractBody, pids, backgroundCpuMsPerS },
      });
      const routes: Record<string, { met: boolean } & Record<string, unknown>> = {};
      for (const route of ROUTES) {
        const sides = {
          anchor: targets(anchor.url, anchorPids, background.anchor)[route],
          app: targets(stand.api.url, stand.pids, background.app)[route],
        };
        await measure(sides.anchor, 2);
        await measure(sides.app, 2);
        const rounds: { anchor: Round[]; app: Round[] } = { anchor: [], app: [] };
        for (let i = 0; i < ROUNDS; i++) {
          // Alternate which side goes first so a drift in the machine's load favours neither.
          const order = i % 2 === 0 ? (['anchor', 'app'] as const) : (['app', 'anchor'] as const);
          for (const side of order) rounds[side].push(await measure(sides[side], DURATION));
        }
        const summary = (list: Round[]) => ({
          requests_per_s: Math.round(median(list.map((r) => r.requests_per_s))),
          p99_ms: median(list.map((r) => r.p99_ms)),
          cpu_ms_per_request: median(list.map((r) => r.cpu_ms_per_request)),
          api_cpu_ms_per_request: median(list.map((r) => r.api_cpu_ms_per_request)),
          non_2xx: list.reduce((n, r) => n + r.non_2xx, 0),
          errors: list.reduce((n, r) => n + r.errors, 0),
          rounds: list,
        });
        const a = summary(rounds.anchor);
        const b = summary(rounds.app);
        const ratio = Math.round((b.requests_per_s / a.requests_per_s) * 100) / 100;
        const p99Ratio = Math.round((b.p99_ms / Math.max(1, a.p99_ms)) * 100) / 100;
        const met = ratio >= TARGET_RATIO && p99Ratio <= TARGET_P99_RATIO && b.non_2xx === 0 && b.errors === 0;
        const cpuRatio = Math.round((b.cpu_ms_per_request / Math.max(0.001, a.cpu_ms_per_request)) * 100) / 100;
        const apiCpuRatio = Math.round((b.api_cpu_ms_per_request / Math.max(0.001, a.cpu_ms_per_request)) * 100) / 100;
        routes[route] = {
          anchor: a,
          app: b,
          ratio,
          p99_ratio: p99Ratio,
          cpu_per_request_ratio: cpuRatio,
          api_cpu_per_request_ratio: apiCpuRatio,
          met,
          measured_at: new Date().toISOString(),
        };
        log(
          `${deployment} ${route}: app ${b.requests_per_s} req/s p99 ${b.p99_ms} ms ${b.cpu_ms_per_request} CPU ms/req; ` +
            `anchor ${a.requests_per_s} req/s p99 ${a.p99_ms} ms ${a.cpu_ms_per_request} CPU ms/req; ${ratio}× (p99 ${p99Ratio}×, CPU ${cpuRatio}×, API process ${apiCpuRatio}×)`,
        );
      }
      return { background_cpu_ms_per_s: background, routes };
    } finally {
      // A profiled anchor writes its profile on exit: wait for it.
      await Promise.all(
        anchor.children.map(async (child) => {
          if (child.exitCode !== null) return;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }),
      );
    }
  } finally {
    await stand.stop();
  }
}

async function main(): Promise<void> {
  // processes.ts checks the test app too (these runs use the production entry points only); compiling it takes milliseconds.
  buildTestApp();
  assertBuilt();
  if (CPU_PROF) mkdirSync(CPU_PROF, { recursive: true });
  const play = await startPlayground();
  const models = await startModelServer();
  const deployments: Record<string, Awaited<ReturnType<typeof benchDeployment>>> = {};
  try {
    for (const deployment of DEPLOYMENTS) deployments[deployment] = await benchDeployment(deployment, play, models);
  } finally {
    await Promise.all([play.close(), models.close()]);
  }
  const file = join(ROOT, 'bench-results', 'api.json');
  const summary = {
    benchmark: 'api: the hot path (job read, results read, synchronous extract) against a bare Fastify anchor in the same run',
    date: new Date().toISOString(),
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
    connections: CONNECTIONS,
    duration_s: DURATION,
    rounds: ROUNDS,
    anchor: {
      job: 'bare Fastify: bearer → SHA-256 → key lookup (cached) → one read of the job document, on the app’s own store',
      results: 'bare Fastify: bearer → SHA-256 → key lookup (cached) → one query of the result documents, on the app’s own store',
      extract:
        'bare Fastify: key lookup (cached) → job inserted → (cluster: job id through a Redis list to a bare worker process that reads the job) → ' +
        'page fetched (node:http) and stripped to text → one openai SDK chat completion (strict json_schema) → JSON.parse → result inserted → ' +
        'job updated once → data sent back (cluster: through a Redis reply list). No SSRF guard, markdown, validation, grounding, cost, events, ' +
        'webhooks, idempotency, running-jobs cap, lease/watchdog or metrics.',
    },
    targets: { requests_per_s_ratio: TARGET_RATIO, p99_ratio: TARGET_P99_RATIO },
    deployments: mergedDeployments(file, deployments),
    met: false,
  };
  summary.met = Object.values(summary.deployments).every((d) => Object.values(d.routes).every((r) => r.met));
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(JSON.stringify(summary, null, 2));
}

type DeploymentResult = { background_cpu_ms_per_s?: unknown; routes: Record<string, { met: boolean } & Record<string, unknown>> };

/** The routes of this run over those of the file (a run of some routes leaves the others' numbers as they were). */
function mergedDeployments(file: string, measured: Record<string, DeploymentResult>): Record<string, DeploymentResult> {
  let previous: Record<string, DeploymentResult> = {};
  try {
    previous = (JSON.parse(readFileSync(file, 'utf8')) as { deployments?: Record<string, DeploymentResult> }).deployments ?? {};
  } catch {
    // No earlier file (or an unreadable one): this run's numbers alone.
  }
  const merged: Record<string, DeploymentResult> = { ...previous };
  for (const [name, result] of Object.entries(measured)) {
    merged[name] = { ...result, routes: { ...(previous[name]?.routes ?? {}), ...result.routes } };
  }
  return merged;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
