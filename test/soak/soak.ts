/**
 * The chaos soak (`npm run soak`; `npm run soak:ci` is the 2-minute variant CI runs). The cluster
 * deployment for real — 2 API and 3 crawler processes (built apps, DEFAULT failover settings) on a
 * redis-server with AOF and the MongoDB-wire server on a file — runs a mixed workload while a chaos
 * driver, on a seeded schedule, kill -9s and restarts crawlers and API replicas, and kill -9s and
 * restarts Redis and the store. Then the verdict is computed from the API and the receivers' records,
 * and the counts, faults and failover durations are written to bench-results/soak.json.
 *
 * Workload: extractions and analyses (sync, with webhooks), crawls of the playground fixture
 * (shop.test; slow.test with Crawl-delay; limited.test answering 429 with Retry-After), webhooks to
 * a receiver that fails ~15 % of requests, SSE clients that disconnect (on purpose, and when their
 * API replica dies) and resume with Last-Event-ID on any replica.
 *
 * The store runs in the test server's file mode (test/servers/mongo-wire: every acknowledged write is
 * on file before its reply), so a kill -9 and a restart on the same file lose nothing, like a MongoDB
 * with journaling. While it is down the API may answer only 503 problem+json with Retry-After
 * (docs/operations.md "The store goes down"); any other 5xx, and any 5xx outside a fault's window, fails.
 *
 * Failover duration (per message held by a killed crawler: a job, a crawl actor, a page task, a
 * webhook delivery): from the kill until a live crawler holds the message's lock (or finished it),
 * read from Redis: before the kill the soak records every active message's lock token; a lock that
 * is never renewed after the kill and expires belongs to the dead crawler.
 *
 * Environment: SOAK_SECONDS (workload + chaos, default 600), SOAK_SEED (default 1), SOAK_CRAWLERS
 * (default 3), SOAK_DRAIN_SECONDS (default 120), SOAK_OUT (default bench-results/soak.json; soak:ci writes
 * bench-results/soak-ci.json), SOAK_FAULTS (only these fault kinds, in turn, one every 10-20 s: e.g.
 * `restart-store` to hunt a bug that one kind of fault shows; default: the mixed schedule below), SOAK_CRAWLS
 * (only crawls of these sites: shop, slow, limited; default all three).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { freePort, startMongoWire, which, type StartedServer } from '../harness/servers';
import { API_MAIN, CRAWLER_MAIN, ROOT, assertBuilt, type AppProcess } from '../e2e/processes';
import { buildTestApp } from '../test-app/build';
import { startFlakyReceiver, type FlakyReceiver } from './flaky-receiver';
import { mulberry32, percentile, type Rng } from './soak-util';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SEED = Number(process.env.SOAK_SEED ?? 1);
const CRAWLERS = Number(process.env.SOAK_CRAWLERS ?? 3);
const DRAIN_SECONDS = Number(process.env.SOAK_DRAIN_SECONDS ?? 120);
const OUT = process.env.SOAK_OUT ?? join(ROOT, 'bench-results', 'soak.json');
const ONLY_CRAWLS = process.env.SOAK_CRAWLS ? process.env.SOAK_CRAWLS.split(',').map((k) => k.trim()) : null;
const ONLY_FAULTS = process.env.SOAK_FAULTS ? process.env.SOAK_FAULTS.split(',').map((k) => k.trim()) : null;
const KEY = 'glk_' + 'S'.repeat(20) + 'k'.repeat(20);
const QUEUES = ['jobs', 'crawls', 'crawl-pages', 'webhooks'] as const;
/** A Redis restart may answer 5xx (503 with Retry-After from /ready, 500/503 from a request that met the outage) until this long after Redis is back. */
const REDIS_WINDOW_MS = 15_000;
/**
 * A store restart may answer 503 problem+json with Retry-After (and nothing else) until this long after the store
 * is back: a request waits at most 5 s for the store (the cluster's server selection timeout), and the driver finds
 * the restarted server within about a second.
 */
const STORE_WINDOW_MS = 10_000;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

const log = (...parts: unknown[]) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}]`, ...parts);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ the cluster

interface Redisd {
  url: string;
  port: number;
  child: ChildProcess;
}

/** redis-server with AOF (fsync always), as docs/operations.md asks of production: a kill -9 loses nothing. */
async function startRedisd(dir: string, port: number): Promise<Redisd> {
  const binary = which('redis-server');
  if (!binary) throw new Error('redis-server not found (apt-get install -y redis-server)');
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
    { stdio: 'ignore' },
  );
  children.add(child);
  const probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') break;
    } catch {
      probe.disconnect();
      await sleep(100);
    }
  }
  probe.disconnect();
  return { url: `redis://127.0.0.1:${port}`, port, child };
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Every child process the soak started: killed when it exits, whatever way it exits. */
const children = new Set<ChildProcess>();
const serverPids = new Set<number>();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const pid of serverPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Like test/e2e/startProcess, with a start-up allowance for a saturated machine and a bounded log. */
async function spawnApp(
  name: string,
  main: string,
  args: string[],
  env: Record<string, string>,
  portVar: 'PORT' | 'CRAWLER_PORT',
): Promise<AppProcess> {
  const port = await freePort();
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  const child = spawn(process.execPath, [main, ...args], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', ...env, [portVar]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const proc: AppProcess = {
    name,
    child,
    port,
    url,
    output: () => out,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}): ${out.slice(-2000)}`);
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
    if (res?.status === 200) return proc;
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not answer /health within 120 s: ${out.slice(-2000)}`);
}

const isAlive = (p: AppProcess) => p.child.exitCode === null && p.child.signalCode === null;

class Cluster {
  apis: AppProcess[] = [];
  crawlers: AppProcess[] = [];
  dead: AppProcess[] = [];
  private serial = 0;
  constructor(readonly env: Record<string, string>) {}
  async startApi(): Promise<AppProcess> {
    const p = await this.start('api', API_MAIN, ['--role=api'], 'PORT');
    this.apis.push(p);
    return p;
  }
  async startCrawler(): Promise<AppProcess> {
    const p = await this.start('crawler', CRAWLER_MAIN, [], 'CRAWLER_PORT');
    this.crawlers.push(p);
    return p;
  }
  /** A process slow to come up on a busy machine (or one that met a Redis restart on its way up) is replaced. */
  private async start(role: string, main: string, args: string[], portVar: 'PORT' | 'CRAWLER_PORT'): Promise<AppProcess> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await spawnApp(`${role}-${++this.serial}`, main, args, this.env, portVar);
      } catch (error) {
        if (attempt >= 3) throw error;
        this.startFailures++;
        log(`${role} did not come up (attempt ${attempt}): ${String(error).slice(0, 300)}`);
      }
    }
  }
  startFailures = 0;
  async kill(p: AppProcess): Promise<void> {
    p.child.kill('SIGKILL');
    await p.exited;
    this.apis = this.apis.filter((x) => x !== p);
    this.crawlers = this.crawlers.filter((x) => x !== p);
    this.dead.push(p);
  }
  liveApis(): AppProcess[] {
    return this.apis.filter(isAlive);
  }
}

// ------------------------------------------------------------------ the client side

interface Http5xx {
  at: number;
  status: number;
  method: string;
  path: string;
  api: string;
  detail?: string;
  /** A 503 that says when to come back, as problem+json. */
  clear503: boolean;
}

const isClear503 = (status: number, headers: Headers): boolean =>
  status === 503 &&
  /^\d+$/.test(headers.get('retry-after') ?? '') &&
  (headers.get('content-type') ?? '').startsWith('application/problem+json');

class Client {
  requests = 0;
  connectionErrors = 0;
  readonly fivexx: Http5xx[] = [];
  readonly jobOutcomes: number[] = [];
  constructor(
    private readonly cluster: Cluster,
    private readonly rng: Rng,
  ) {}

  pickApi(): AppProcess | null {
    const live = this.cluster.liveApis();
    return live.length ? live[Math.floor(this.rng() * live.length)] : null;
  }

  /** One request to a random live API replica; GETs are retried on another replica after a connection error. */
  async call(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs = 150_000,
  ): Promise<{ status: number; body: any; text: string; headers: Headers } | null> {
    const attempts = method === 'GET' ? 8 : 1;
    for (let i = 0; i < attempts; i++) {
      const api = this.pickApi();
      if (!api) {
        await sleep(300);
        continue;
      }
      this.requests++;
      try {
        const res = await fetch(`${api.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.text();
        // 502/504 with a job id are documented job outcomes (the site or model failed; the wait ran out), not server faults.
        const jobOutcome = (res.status === 502 || res.status === 504) && text.includes('"job_id"');
        if (res.status >= 500 && !jobOutcome)
          this.fivexx.push({
            at: Date.now(),
            status: res.status,
            method,
            path: path.replace(/\?.*$/, ''),
            api: api.name,
            detail: text.slice(0, 300),
            clear503: isClear503(res.status, res.headers),
          });
        if (jobOutcome) this.jobOutcomes.push(res.status);
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        if (res.status >= 500 && method === 'GET' && i < attempts - 1) {
          await sleep(500);
          continue;
        }
        return { status: res.status, body: parsed, text, headers: res.headers };
      } catch {
        this.connectionErrors++;
        await sleep(300);
      }
    }
    return null;
  }
}

// ------------------------------------------------------------------ SSE clients

interface SseClient {
  jobId: string;
  ids: number[];
  types: string[];
  connects: number;
  done: boolean;
}

/** Reads a job's stream until `complete`, disconnecting after a random number of events and resuming with Last-Event-ID on any replica. */
async function followStream(client: Client, rng: Rng, jobId: string, until: () => boolean): Promise<SseClient> {
  const sse: SseClient = { jobId, ids: [], types: [], connects: 0, done: false };
  while (!sse.done && !until()) {
    const api = client.pickApi();
    if (!api) {
      await sleep(300);
      continue;
    }
    const leaveAfter = 1 + Math.floor(rng() * 12);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 90_000);
    const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' };
    const last = sse.ids.at(-1);
    if (last !== undefined) headers['last-event-id'] = String(last);
    sse.connects++;
    try {
      const res = await fetch(`${api.url}/api/v1/jobs/${jobId}/stream`, { headers, signal: controller.signal });
      client.requests++;
      if (res.status >= 500)
        client.fivexx.push({
          at: Date.now(),
          status: res.status,
          method: 'GET',
          path: '/api/v1/jobs/{id}/stream',
          api: api.name,
          clear503: isClear503(res.status, res.headers),
        });
      if (res.status !== 200 || !res.body) {
        await sleep(500);
        continue;
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      let seenNow = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let index: number;
        while ((index = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, index);
          buffer = buffer.slice(index + 2);
          let id: number | undefined;
          let event = 'message';
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = Number(line.slice(4));
            else if (line.startsWith('event: ')) event = line.slice(7);
          }
          if (id === undefined) continue;
          sse.ids.push(id);
          sse.types.push(event);
          seenNow++;
          if (event === 'complete') sse.done = true;
        }
        if (sse.done || seenNow >= leaveAfter) break;
      }
      controller.abort();
    } catch {
      // the replica died mid-stream (or refused): resume elsewhere
      await sleep(200);
    } finally {
      clearTimeout(timer);
    }
  }
  return sse;
}

// ------------------------------------------------------------------ failover measurement

interface Failover {
  queue: string;
  fault: number;
  seconds: number | null;
  outcome: 'taken-over' | 'finished' | 'failed-stalled' | 'not-recovered';
}

/** Watches, in Redis, the messages a crawler held when it was killed until a live crawler has them again. */
async function measureFailover(
  redisUrl: string,
  snapshot: Array<{ queue: string; id: string; token: string }>,
  killedAt: number,
  fault: number,
): Promise<Failover[]> {
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  const key = (q: string, id: string) => `gleaner:${q}:${id}`;
  const state = new Map(
    snapshot.map((s) => [`${s.queue}/${s.id}`, { ...s, lastPttl: Number.POSITIVE_INFINITY, lastSeenAt: 0, phase: 'watch' }]),
  );
  const results: Failover[] = [];
  const deadline = killedAt + 90_000;
  try {
    while ([...state.values()].some((s) => s.phase !== 'done') && Date.now() < deadline) {
      for (const s of state.values()) {
        if (s.phase === 'done') continue;
        try {
          const lock = await r.get(`${key(s.queue, s.id)}:lock`);
          const now = Date.now();
          if (s.phase === 'watch') {
            if (lock === s.token) {
              const pttl = await r.pttl(`${key(s.queue, s.id)}:lock`);
              if (pttl > s.lastPttl + 300) {
                s.phase = 'done'; // renewed: its worker is alive
              } else {
                s.lastPttl = pttl;
                s.lastSeenAt = Date.now();
              }
              continue;
            }
            if (lock !== null) {
              // Someone else holds it already (it expired between two polls and was taken).
              results.push({ queue: s.queue, fault, seconds: (now - killedAt) / 1000, outcome: 'taken-over' });
              s.phase = 'done';
              continue;
            }
            // Gone: expired (dead worker) if it was about to; released early means a live worker finished it.
            if (s.lastPttl - (now - s.lastSeenAt) <= 500) s.phase = 'expired';
            else s.phase = 'done';
            if (s.phase === 'done') continue;
          }
          if (lock !== null && lock !== s.token) {
            results.push({ queue: s.queue, fault, seconds: (now - killedAt) / 1000, outcome: 'taken-over' });
            s.phase = 'done';
          } else if ((await r.exists(key(s.queue, s.id))) === 0) {
            results.push({ queue: s.queue, fault, seconds: (now - killedAt) / 1000, outcome: 'finished' });
            s.phase = 'done';
          } else if ((await r.zscore(`gleaner:${s.queue}:failed`, s.id)) !== null) {
            results.push({ queue: s.queue, fault, seconds: null, outcome: 'failed-stalled' });
            s.phase = 'done';
          }
        } catch {
          // Redis blip: poll again
        }
      }
      await sleep(150);
    }
    for (const s of state.values())
      if (s.phase === 'expired') results.push({ queue: s.queue, fault, seconds: null, outcome: 'not-recovered' });
  } finally {
    r.disconnect();
  }
  return results;
}

async function activeLocks(redisUrl: string): Promise<Array<{ queue: string; id: string; token: string }>> {
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  const out: Array<{ queue: string; id: string; token: string }> = [];
  try {
    for (const queue of QUEUES) {
      for (const id of await r.lrange(`gleaner:${queue}:active`, 0, -1)) {
        const token = await r.get(`gleaner:${queue}:${id}:lock`);
        if (token) out.push({ queue, id, token });
      }
    }
  } finally {
    r.disconnect();
  }
  return out;
}

// ------------------------------------------------------------------ the soak

interface FaultRecord {
  n: number;
  kind: 'kill-crawler' | 'kill-api' | 'restart-redis' | 'restart-store';
  at_s: number;
  target: string;
  down_ms: number;
  in_flight?: number;
  window?: [number, number];
  /** Only 503 problem+json with Retry-After may be answered in this window. */
  only503?: boolean;
}

interface Accepted {
  id: string;
  type: 'extract' | 'analyze' | 'crawl';
  webhook: boolean;
  pageEvents: boolean;
}

async function main(): Promise<void> {
  // processes.ts checks the test app too (these runs use the production entry points only); compiling it takes milliseconds.
  buildTestApp();
  assertBuilt();
  const t0 = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'gleaner-soak-'));
  log(`seed ${SEED}, ${SECONDS} s of workload and chaos, ${CRAWLERS} crawlers, 2 API replicas; logs in ${work}`);

  const play: Playground = await startPlayground();
  const models: ModelServer = await startModelServer();
  const receiver: FlakyReceiver = await startFlakyReceiver(mulberry32(SEED + 7), 0.15);
  const storeFile = join(work, 'store.mv.db');
  let mongo: StartedServer = await startMongoWire({ dataFile: storeFile });
  const storePort = Number(new URL(mongo.url).port);
  serverPids.add(mongo.pid);
  let redis = await startRedisd(work, await freePort());
  const redisUrl = redis.url;
  const env: Record<string, string> = {
    MONGODB_URI: `${mongo.url}/gleaner_soak`,
    REDIS_URL: redisUrl,
    GLEANER_SECRET: 'soak-test-secret-0123456789abcdefghij',
    GLEANER_BOOTSTRAP_KEY: KEY,
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
    GLEANER_RESOLVE: play.resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_MAX_RUNNING_JOBS_PER_USER: '200',
    GLEANER_LLM_RETRIES: '1',
    // Workload settings, not failover knobs: webhook retries spaced 0.5 s, 2 s, 8 s, ... so they settle within the soak.
    GLEANER_WEBHOOK_RETRY_BASE_MS: '500',
    GLEANER_WEBHOOK_RETRY_MAX_MS: '10000',
    GLEANER_WEBHOOK_MAX_ATTEMPTS: '8',
    GLEANER_SHUTDOWN_GRACE_MS: '2000',
    // info: a job left open is reported with its actor's story (own, recover, seed, crawl, finish) from the logs.
    LOG_LEVEL: 'info',
  };
  const cluster = new Cluster(env);
  await cluster.startApi();
  await Promise.all([cluster.startApi(), ...Array.from({ length: CRAWLERS }, () => cluster.startCrawler())]);
  const client = new Client(cluster, mulberry32(SEED + 1));
  const started = Date.now();
  log(`cluster up in ${Math.round((started - t0) / 1000)} s`);

  const accepted: Accepted[] = [];
  const unknownPosts = { count: 0 };
  const extractTimeouts = { count: 0 };
  const sseClients: Array<Promise<SseClient>> = [];
  const faults: FaultRecord[] = [];
  const failovers: Failover[] = [];
  const lagMax = new Map<string, number>();
  const endAt = started + SECONDS * 1000;
  let stopping = false;
  const running = () => !stopping && Date.now() < endAt;
  let drainDeadline = Number.POSITIVE_INFINITY;

  const hook = (pageEvents: boolean) => ({
    webhook: {
      url: `${receiver.url}/hook`,
      events: pageEvents ? ['job.page', 'job.completed', 'job.failed'] : ['job.completed', 'job.failed'],
    },
  });
  const llm = (model: string) => ({ provider: 'openai', model, api_key: 'sk-soak', base_url: models.openaiBaseUrl });
  const wrng = mulberry32(SEED + 2);

  async function extractLoop(): Promise<void> {
    while (running()) {
      const n = 1 + Math.floor(wrng() * 50);
      const withHook = wrng() < 0.6;
      const res = await client.call('POST', '/api/v1/extract', {
        url: play.url('shop.test', `/product/${n}`),
        schema: { name: 'string', price: 'string', sku: 'string' },
        fetch_mode: 'static',
        llm_config: llm(`slow-${200 + Math.floor(wrng() * 2500)}`),
        ...(withHook ? hook(false) : {}),
      });
      if (!res) unknownPosts.count++;
      else if (res.body?.job_id) {
        accepted.push({ id: res.body.job_id, type: 'extract', webhook: withHook, pageEvents: false });
        if (res.status === 504) extractTimeouts.count++;
        if (wrng() < 0.2)
          sseClients.push(followStream(client, mulberry32(SEED + accepted.length), res.body.job_id, () => Date.now() > drainDeadline));
      } else if (res.status < 500) throw new Error(`extract refused: ${res.status} ${res.text}`);
    }
  }

  async function analyzeLoop(): Promise<void> {
    while (running()) {
      const res = await client.call('POST', '/api/v1/analyze', {
        url: wrng() < 0.5 ? play.url('shop.test', `/product/${1 + Math.floor(wrng() * 50)}`) : play.url('shop.test', '/catalog/page/2'),
        fetch_mode: 'static',
        llm_config: llm('slow-300'),
      });
      if (!res) unknownPosts.count++;
      else if (res.body?.job_id) accepted.push({ id: res.body.job_id, type: 'analyze', webhook: false, pageEvents: false });
      else if (res.status < 500) throw new Error(`analyze refused: ${res.status} ${res.text}`);
      await sleep(500 + wrng() * 1500);
    }
  }

  const crawlSpecs = [
    () => ({
      url: play.url('shop.test', '/catalog/page/1'),
      options: { follow_selector: 'li.next a, a.product', max_depth: 10, concurrency: 4, max_pages: 10 + Math.floor(wrng() * 30) },
    }),
    () => ({ url: play.url('slow.test', '/'), options: { follow_selector: 'a', max_depth: 10, max_pages: 6 } }),
    () => {
      play.limit('limited.test', { count: 3, status: 429, retryAfter: 1 });
      return { url: play.url('limited.test', '/'), options: { follow_selector: 'a', max_depth: 2, max_pages: 7 } };
    },
  ];

  /** The site of each crawl spec above (SOAK_CRAWLS picks among them). */
  const CRAWL_SITES = ['shop', 'slow', 'limited'];
  if (ONLY_CRAWLS?.some((site) => !CRAWL_SITES.includes(site))) throw new Error(`SOAK_CRAWLS: known sites are ${CRAWL_SITES.join(', ')}`);

  async function crawlLoop(): Promise<void> {
    while (running()) {
      const specs = ONLY_CRAWLS ? crawlSpecs.filter((_, i) => ONLY_CRAWLS.includes(CRAWL_SITES[i])) : crawlSpecs;
      const spec = specs[Math.floor(wrng() * specs.length)]();
      const pageEvents = wrng() < 0.5;
      const res = await client.call('POST', '/api/v1/crawl', {
        ...spec,
        schema: { name: 'string', price: 'string', sku: 'string' },
        llm_config: llm(`slow-${100 + Math.floor(wrng() * 400)}`),
        ...hook(pageEvents),
      });
      if (!res) {
        unknownPosts.count++;
        continue;
      }
      if (!res.body?.job_id) {
        if (res.status < 500) throw new Error(`crawl refused: ${res.status} ${res.text}`);
        continue;
      }
      const id = res.body.job_id as string;
      accepted.push({ id, type: 'crawl', webhook: true, pageEvents });
      const sse = followStream(client, mulberry32(SEED + 1000 + accepted.length), id, () => Date.now() > drainDeadline);
      sseClients.push(sse);
      // Keep a few crawls at once: wait for this one to end (or for the workload to stop).
      while (running()) {
        const job = await client.call('GET', `/api/v1/jobs/${id}`);
        if (job?.body && TERMINAL.has(job.body.status)) break;
        await sleep(1000);
      }
    }
  }

  async function lagSampler(): Promise<void> {
    while (!stopping) {
      for (const crawler of cluster.crawlers.filter(isAlive)) {
        try {
          const text = await (await fetch(`${crawler.url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
          const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text);
          if (m) lagMax.set(crawler.name, Math.max(lagMax.get(crawler.name) ?? 0, Number(m[1])));
        } catch {
          // a crawler that just died
        }
      }
      await sleep(5000);
    }
  }

  // The seeded fault schedule: one fault every 20-35 s from 15 s in (the first four 20 s apart), none in
  // the last 25 s; the first four are one of each kind (so even the 2-minute run injects all of them).
  const kinds: FaultRecord['kind'][] = ['kill-crawler', 'kill-api', 'restart-redis', 'restart-store'];
  const crng = mulberry32(SEED + 3);
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(crng() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j], kinds[i]];
  }
  const schedule: Array<{ at: number; kind: FaultRecord['kind'] }> = [];
  if (ONLY_FAULTS) {
    const unknown = ONLY_FAULTS.filter((k) => !kinds.includes(k as FaultRecord['kind']));
    if (unknown.length > 0) throw new Error(`SOAK_FAULTS: unknown fault kinds ${unknown.join(', ')} (known: ${kinds.join(', ')})`);
    for (let at = 10_000, n = 0; at < SECONDS * 1000 - 25_000; at += 10_000 + crng() * 10_000, n++)
      schedule.push({ at, kind: ONLY_FAULTS[n % ONLY_FAULTS.length] as FaultRecord['kind'] });
  }
  for (
    let at = 15_000, n = 0;
    !ONLY_FAULTS && at < SECONDS * 1000 - 25_000;
    at += n < kinds.length ? 20_000 : 20_000 + crng() * 15_000, n++
  ) {
    const other = (): FaultRecord['kind'] => (crng() < 0.6 ? 'kill-api' : crng() < 0.5 ? 'restart-redis' : 'restart-store');
    const kind = n < kinds.length ? kinds[n] : crng() < 0.45 ? 'kill-crawler' : other();
    schedule.push({ at, kind });
  }

  async function chaos(): Promise<void> {
    let n = 0;
    for (const step of schedule) {
      while (Date.now() < started + step.at) {
        if (!running()) return;
        await sleep(200);
      }
      if (!running()) return;
      n++;
      const at_s = (Date.now() - started) / 1000;
      if (step.kind === 'kill-crawler') {
        const live = cluster.crawlers.filter(isAlive);
        const victim = live[Math.floor(crng() * live.length)];
        const snapshot = await activeLocks(redisUrl);
        const t0 = Date.now();
        await cluster.kill(victim);
        // Which of the snapshot's messages the victim held is decided by whether their locks are renewed afterwards.
        const measuring = measureFailover(redisUrl, snapshot, t0, n).then((r) => {
          failovers.push(...r);
          return r;
        });
        const downMs = 1000 + Math.floor(crng() * 6000);
        await sleep(downMs);
        await cluster.startCrawler();
        const mine = await measuring;
        faults.push({ n, kind: step.kind, at_s, target: victim.name, down_ms: downMs, in_flight: mine.length });
        log(
          `fault ${n}: kill -9 ${victim.name}; ${mine.length} messages failed over: ${mine.map((f) => `${f.queue} ${f.seconds ?? f.outcome}`).join(', ')}`,
        );
      } else if (step.kind === 'kill-api') {
        const live = cluster.liveApis();
        const victim = live[Math.floor(crng() * live.length)];
        await cluster.kill(victim);
        const downMs = 500 + Math.floor(crng() * 2500);
        await sleep(downMs);
        await cluster.startApi();
        faults.push({ n, kind: step.kind, at_s, target: victim.name, down_ms: downMs });
        log(`fault ${n}: kill -9 ${victim.name}, a new replica started after ${downMs} ms`);
      } else if (step.kind === 'restart-store') {
        const t0 = Date.now();
        process.kill(mongo.pid, 'SIGKILL');
        await mongo.stop(); // resolves on the exit
        serverPids.delete(mongo.pid);
        const downMs = 500 + Math.floor(crng() * 2500);
        await sleep(downMs);
        mongo = await startMongoWire({ dataFile: storeFile, port: storePort });
        serverPids.add(mongo.pid);
        const up = Date.now();
        faults.push({ n, kind: step.kind, at_s, target: 'store', down_ms: downMs, window: [t0, up + STORE_WINDOW_MS], only503: true });
        log(`fault ${n}: kill -9 the store, back on its file after ${up - t0} ms`);
      } else {
        const t0 = Date.now();
        await killHard(redis.child);
        const downMs = 500 + Math.floor(crng() * 2500);
        await sleep(downMs);
        redis = await startRedisd(work, redis.port);
        const up = Date.now();
        faults.push({ n, kind: step.kind, at_s, target: 'redis', down_ms: downMs, window: [t0, up + REDIS_WINDOW_MS] });
        log(`fault ${n}: kill -9 redis, back after ${up - t0} ms`);
      }
    }
  }

  const loops = [extractLoop(), extractLoop(), analyzeLoop(), crawlLoop(), crawlLoop()];
  const sampler = lagSampler();
  const chaosDone = chaos();
  const workErrors: string[] = [];
  await Promise.all(loops.map((l) => l.catch((e: unknown) => void workErrors.push(String(e)))));
  await chaosDone;
  log(`workload stopped: ${accepted.length} jobs accepted; draining (up to ${DRAIN_SECONDS} s)`);

  const byIdNow = (list: any[], id: string) => list.find((j) => j.id === id);
  /** A job's webhook events as the receiver saw them against the attempts the API recorded. */
  async function webhookCheck(
    a: Accepted,
    job: any,
  ): Promise<{ problems: string[]; delivered: number; duplicates: number; records: number }> {
    const problems: string[] = [];
    const got = receiver.requests.filter((r) => r.jobId === a.id);
    const ok = new Map<string, number>();
    for (const r of got) if (r.answered === 200) ok.set(r.webhookId, (ok.get(r.webhookId) ?? 0) + 1);
    const failedOnly = new Set(got.filter((r) => !ok.has(r.webhookId)).map((r) => r.webhookId));
    if (failedOnly.size) problems.push(`job ${a.id}: webhook events never delivered: ${[...failedOnly].join(', ')}`);
    const terminalIds = new Set(
      got.filter((r) => r.answered === 200 && (r.type === 'job.completed' || r.type === 'job.failed')).map((r) => r.webhookId),
    );
    if (terminalIds.size !== 1) problems.push(`job ${a.id}: ${terminalIds.size} distinct terminal webhook events delivered`);
    if (a.pageEvents && job) {
      const pageIds = new Set(got.filter((r) => r.answered === 200 && r.type === 'job.page').map((r) => r.webhookId));
      if (pageIds.size !== job.page_count)
        problems.push(`crawl ${a.id}: ${pageIds.size} job.page events delivered for ${job.page_count} pages`);
    }
    const records = ((await client.call('GET', `/api/v1/jobs/${a.id}/webhooks`))?.body?.deliveries ?? []) as any[];
    // An attempt is recorded (pending) before it is sent, and ends success, retrying (failed, tried again) or failed.
    const pending = records.filter((d) => d.status === 'pending').length;
    if (pending) problems.push(`job ${a.id}: ${pending} webhook attempts still in flight`);
    if (records.length < got.length)
      problems.push(`job ${a.id}: the receiver got ${got.length} requests, ${records.length} attempts recorded`);
    const successes = records.filter((d) => d.status === 'success').length;
    if (successes < ok.size) problems.push(`job ${a.id}: ${ok.size} events delivered, ${successes} successful attempts recorded`);
    const refused = got.filter((r) => r.answered !== 200).length;
    const unsuccessful = records.filter((d) => d.status === 'retrying' || d.status === 'failed').length;
    if (unsuccessful < refused)
      problems.push(`job ${a.id}: the receiver refused ${refused} attempts, ${unsuccessful} unsuccessful attempts recorded`);
    const duplicates = [...ok.values()].reduce((sum, n) => sum + n - 1, 0);
    return { problems, delivered: ok.size, duplicates, records: records.length };
  }

  // ---------------------------------------------------------------- drain
  drainDeadline = Date.now() + DRAIN_SECONDS * 1000;
  const jobsOf = async (): Promise<any[]> => {
    const all: any[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await client.call('GET', `/api/v1/jobs?limit=100&offset=${offset}`);
      if (!page?.body?.jobs) throw new Error(`listing jobs failed: ${page?.status} ${page?.text}`);
      all.push(...page.body.jobs);
      if (page.body.jobs.length < 100) return all;
    }
  };
  let jobs = await jobsOf();
  while (Date.now() < drainDeadline) {
    const open = jobs.filter((j) => !TERMINAL.has(j.status));
    let unsettled = 0;
    if (open.length === 0) {
      for (const a of accepted.filter((x) => x.webhook)) {
        if ((await webhookCheck(a, byIdNow(jobs, a.id))).problems.length) unsettled++;
      }
    }
    if (open.length === 0 && unsettled === 0) break;
    await sleep(2000);
    jobs = await jobsOf();
  }
  const sses = await Promise.all(sseClients);
  stopping = true;
  await sampler;

  // ---------------------------------------------------------------- verdict
  const failures: string[] = [...workErrors.map((e) => `workload: ${e}`)];
  const fail = (msg: string) => {
    if (failures.length < 200) failures.push(msg);
  };
  const byId = new Map(jobs.map((j) => [j.id as string, j]));
  for (const a of accepted) if (!byId.has(a.id)) fail(`accepted job ${a.id} is not listed`);
  for (const j of jobs) {
    if (TERMINAL.has(j.status)) continue;
    // What a job left open was doing: still making progress (a slow drain) or standing still (a hang).
    const now = (await client.call('GET', `/api/v1/jobs/${j.id}`))?.body;
    const map = j.type === 'crawl' ? (await client.call('GET', `/api/v1/jobs/${j.id}/crawl-map?limit=1`))?.body : undefined;
    const counts = map ? `; entries pending ${map.pending}, running ${map.running}, completed ${map.completed}, failed ${map.failed}` : '';
    fail(
      `job ${j.id} (${j.type}) is ${now?.status ?? j.status}: ${now?.page_count ?? j.page_count} pages at the drain's end ` +
        `(${j.page_count} when it was listed), updated ${now?.updated_at ?? '?'}${counts}`,
    );
    // Its last log lines from every process (request logs left out), for the CI output: where its actor stopped.
    const lines = [...cluster.apis, ...cluster.crawlers, ...cluster.dead].flatMap((p) =>
      p
        .output()
        .split('\n')
        .filter((line) => line.includes(j.id) && !line.includes('"msg":"request"'))
        .map((line) => `${p.name} ${line.slice(0, 400)}`),
    );
    const at = (line: string) => /"time":"([^"]+)"/.exec(line)?.[1] ?? '';
    for (const line of lines.sort((a, b) => at(a).localeCompare(at(b))).slice(-25)) log(`  open job log: ${line}`);
  }

  let pages = 0;
  let crawlEntries = 0;
  let downloadItems = 0;
  for (const j of jobs) {
    if (!TERMINAL.has(j.status)) continue;
    const link = await client.call('GET', `/api/v1/jobs/${j.id}/download?format=jsonl`);
    if (!link?.body?.download_url) {
      fail(`job ${j.id}: no download link (${link?.status})`);
      continue;
    }
    const url = new URL(link.body.download_url as string);
    const dl = await client.call('GET', `${url.pathname}${url.search}`);
    const items = (dl?.text ?? '')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { url: string; status?: string });
    downloadItems += items.length;
    const urls = items.map((i) => i.url);
    const dupes = urls.filter((u, i) => urls.indexOf(u) !== i);
    if (dupes.length) fail(`job ${j.id}: pages with two results: ${[...new Set(dupes)].join(', ')}`);
    const completedItems = items.filter((i) => (i.status ?? 'completed') === 'completed').length;
    if (j.status === 'completed' && completedItems !== j.page_count)
      fail(`job ${j.id}: page_count ${j.page_count} but ${completedItems} completed results in the download`);
    pages += j.page_count as number;
    if (j.type === 'crawl') {
      const map = await client.call('GET', `/api/v1/jobs/${j.id}/crawl-map`);
      if (!map?.body) {
        fail(`job ${j.id}: no crawl map (${map?.status})`);
        continue;
      }
      crawlEntries += map.body.total as number;
      if (map.body.pending + map.body.running !== 0)
        fail(`crawl ${j.id}: ${map.body.pending} pending and ${map.body.running} running entries`);
      const open = (map.body.entries as any[]).filter((e) => !['completed', 'failed', 'skipped', 'cancelled'].includes(e.status));
      if (open.length) fail(`crawl ${j.id}: entries not terminal: ${open.map((e) => `${e.url} ${e.status}`).join(', ')}`);
      const inDownload = new Set(urls);
      for (const e of map.body.entries as any[]) {
        if (e.status === 'completed' && e.result_id && !inDownload.has(e.final_url ?? e.url))
          fail(`crawl ${j.id}: result of ${e.url} missing from the download`);
      }
    }
  }

  // Webhooks: every event delivered (deduplicated by webhook-id), every attempt recorded.
  let webhookEvents = 0;
  let deliveredDuplicates = 0;
  let attemptsRecorded = 0;
  for (const a of accepted.filter((x) => x.webhook)) {
    const job = byId.get(a.id);
    if (!job || !TERMINAL.has(job.status)) continue;
    const check = await webhookCheck(a, job);
    for (const problem of check.problems) fail(problem);
    webhookEvents += check.delivered;
    deliveredDuplicates += check.duplicates;
    attemptsRecorded += check.records;
  }

  // SSE: each client saw each event once, in order, across reconnections, and the same events a fresh reader sees.
  let sseReconnects = 0;
  for (const s of sses) {
    sseReconnects += s.connects - 1;
    const job = byId.get(s.jobId);
    if (!s.done) {
      fail(`SSE client of ${s.jobId} never saw complete (job ${job?.status})`);
      continue;
    }
    const increasing = s.ids.every((id, k) => k === 0 || id > s.ids[k - 1]);
    if (!increasing) fail(`SSE client of ${s.jobId}: ids ${s.ids.join(',')} (duplicates or out of order)`);
    if (s.types.filter((t) => t === 'complete').length !== 1)
      fail(`SSE client of ${s.jobId}: ${s.types.filter((t) => t === 'complete').length} complete events`);
    const fresh = await followStream(
      client,
      () => 0.99,
      s.jobId,
      () => false,
    );
    const missed = fresh.ids.filter((id) => !s.ids.includes(id));
    if (missed.length || fresh.ids.length !== s.ids.length)
      fail(`SSE client of ${s.jobId}: saw ${s.ids.length} events, a fresh reader ${fresh.ids.length}; missed ids ${missed.join(',')}`);
    if (job?.type === 'crawl' && job.status === 'completed') {
      const results = s.types.filter((t) => t === 'result').length;
      if (results !== job.page_count) fail(`SSE client of ${s.jobId}: ${results} result events for ${job.page_count} pages`);
    }
  }

  // 5xx only inside a documented window (a Redis restart and the 15 s after it; a store restart and the 10 s
  // after it, where only a 503 problem+json with Retry-After may be answered).
  const windowed = faults.filter((f) => f.window);
  const inWindow = (e: Http5xx, f: FaultRecord) => e.at >= f.window![0] && e.at <= f.window![1];
  const outside = client.fivexx.filter((e) => !windowed.some((f) => inWindow(e, f)));
  for (const e of outside.slice(0, 20))
    fail(`${e.status} outside a fault window: ${e.method} ${e.path} on ${e.api} at ${new Date(e.at).toISOString()}: ${e.detail ?? ''}`);
  // Inside a store window only, the answer must be the clear 503 (a Redis window overlapping it allows the rest).
  const unclear = client.fivexx.filter(
    (e) => !e.clear503 && windowed.some((f) => f.only503 && inWindow(e, f)) && !windowed.some((f) => !f.only503 && inWindow(e, f)),
  );
  for (const e of unclear.slice(0, 20))
    fail(
      `${e.status} during a store outage (only 503 problem+json with Retry-After is documented): ${e.method} ${e.path}: ${e.detail ?? ''}`,
    );

  const durations = failovers.filter((f) => f.seconds !== null).map((f) => f.seconds!);
  for (const f of failovers.filter((x) => x.outcome === 'not-recovered'))
    fail(`fault ${f.fault}: a ${f.queue} message of the killed crawler was not taken over within 90 s`);
  const byQueue = Object.fromEntries(
    QUEUES.map((q) => {
      const d = failovers.filter((f) => f.queue === q && f.seconds !== null).map((f) => f.seconds!);
      return [q, { count: d.length, p50_s: percentile(d, 50), p95_s: percentile(d, 95), max_s: d.length ? Math.max(...d) : null }];
    }),
  );
  const count = (type: string, status?: string) => jobs.filter((j) => j.type === type && (!status || j.status === status)).length;
  const report = {
    benchmark: 'soak',
    date: new Date().toISOString(),
    seed: SEED,
    workload_seconds: SECONDS,
    wall_seconds: Math.round((Date.now() - t0) / 1000),
    startup_seconds: Math.round((started - t0) / 1000),
    cluster: {
      api_replicas: 2,
      crawlers: CRAWLERS,
      redis: 'redis-server, AOF fsync always',
      store: 'MongoDB-wire test server on a file (H2 backend, every acknowledged write on file before its reply)',
    },
    failover_settings: 'defaults (GLEANER_QUEUE_STALLED_MS 10000, check every 2000, GLEANER_CRAWL_LEASE_MS 10000)',
    verdict: failures.length === 0 ? 'pass' : 'fail',
    failures,
    counts: {
      jobs: jobs.length,
      accepted: accepted.length,
      extract: { total: count('extract'), completed: count('extract', 'completed'), failed: count('extract', 'failed') },
      analyze: { total: count('analyze'), completed: count('analyze', 'completed'), failed: count('analyze', 'failed') },
      crawl: { total: count('crawl'), completed: count('crawl', 'completed'), failed: count('crawl', 'failed') },
      pages,
      crawl_map_entries: crawlEntries,
      download_items: downloadItems,
      posts_without_answer: unknownPosts.count,
      extract_504_with_job_id: extractTimeouts.count,
      http_502_504_job_outcomes: client.jobOutcomes.length,
      failed_jobs_by_category: jobs
        .filter((j) => j.status === 'failed')
        .reduce<Record<string, number>>(
          (acc, j) => ((acc[j.error_category ?? 'unknown'] = (acc[j.error_category ?? 'unknown'] ?? 0) + 1), acc),
          {},
        ),
      webhook_events_delivered: webhookEvents,
      webhook_redeliveries_deduplicated: deliveredDuplicates,
      webhook_attempts_recorded: attemptsRecorded,
      webhook_requests_received: receiver.requests.length,
      webhook_requests_refused: receiver.requests.filter((r) => r.answered !== 200).length,
      sse_clients: sses.length,
      sse_reconnections: sseReconnects,
      requests: client.requests,
      connection_errors: client.connectionErrors,
      http_5xx: client.fivexx.length,
      http_5xx_outside_windows: outside.length,
      http_503_during_store_outages: client.fivexx.filter((e) => e.clear503 && windowed.some((f) => f.only503 && inWindow(e, f))).length,
      http_5xx_unclear_during_store_outages: unclear.length,
      model_calls: models.requests.length,
      playground_429s: play.requests.filter((r) => r.status === 429).length,
    },
    faults_injected: faults.length,
    faults,
    failovers: {
      count: durations.length,
      p50_s: percentile(durations, 50),
      p95_s: percentile(durations, 95),
      max_s: durations.length ? Math.max(...durations) : null,
      by_queue: byQueue,
      finished_before_seen: failovers.filter((f) => f.outcome === 'finished').length,
      failed_after_max_stalls: failovers.filter((f) => f.outcome === 'failed-stalled').length,
      not_recovered: failovers.filter((f) => f.outcome === 'not-recovered').length,
    },
    crawler_event_loop_lag_max_s: lagMax.size ? Math.max(...lagMax.values()) : null,
  };
  mkdirSync(join(OUT, '..'), { recursive: true });
  writeFileSync(OUT, JSON.stringify(report, null, 2) + '\n');
  const logDir = join(work, 'logs');
  mkdirSync(logDir, { recursive: true });
  for (const p of [...cluster.apis, ...cluster.crawlers, ...cluster.dead]) writeFileSync(join(logDir, `${p.name}.log`), p.output());
  log(
    `verdict: ${report.verdict}; ${jobs.length} jobs, ${pages} pages, ${faults.length} faults, failovers p50 ${report.failovers.p50_s} s p95 ${report.failovers.p95_s} s max ${report.failovers.max_s} s; ${OUT}`,
  );
  for (const f of failures.slice(0, 30)) log(`  FAIL ${f}`);

  await Promise.all([...cluster.apis, ...cluster.crawlers].map((p) => p.stop('SIGKILL')));
  await killHard(redis.child);
  await mongo.stop();
  await play.close();
  await models.close();
  await receiver.close();
  process.exit(failures.length === 0 ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
