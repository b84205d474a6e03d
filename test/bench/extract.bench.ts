/**
 * npm run bench:extract — POST /api/v1/extract on a loopback fixture page with the instant local
 * model, 16 concurrent requests, embedded (one process) and cluster (API + crawler processes on
 * Redis and the MongoDB-wire test server). Targets: p50 <= 25 ms and >= 100 extractions/s embedded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startModelServer } from '../fixtures/model-server';
import { startFixtureSite } from '../fixtures/site';
import { freePort, startMongoWire, startRedis, type StartedServer } from '../harness/servers';

const ROOT = join(__dirname, '..', '..');
const API = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const CRAWLER = join(ROOT, 'dist', 'apps', 'crawler', 'src', 'main.js');
const KEY = 'glk_' + 'X'.repeat(20) + 'x'.repeat(20);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 16;

function spawnApp(main: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [main, ...args], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitHealthy(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${url}/health`).catch(() => null))?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not start`);
}

async function measure(name: string, apiUrl: string, body: string) {
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const probe = await fetch(`${apiUrl}/api/v1/extract`, { method: 'POST', headers, body });
  if (probe.status !== 200) throw new Error(`${name}: probe answered ${probe.status}: ${await probe.text()}`);
  await autocannon({ url: `${apiUrl}/api/v1/extract`, method: 'POST', headers, body, connections: CONNECTIONS, duration: 3 }); // warm-up
  // Latency of one extraction on an otherwise idle service, then throughput and latency under 16 concurrent.
  const url = `${apiUrl}/api/v1/extract`;
  const single = await autocannon({ url, method: 'POST', headers, body, connections: 1, duration: Math.max(3, Math.round(DURATION / 2)) });
  const result = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: DURATION });
  return {
    deployment: name,
    single_client_latency_ms: { p50: single.latency.p50, p99: single.latency.p99 },
    extractions_per_s: result.requests.average,
    latency_ms: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    non_2xx: result.non2xx + single.non2xx,
    errors: result.errors + single.errors,
  };
}

async function main(): Promise<void> {
  if (!existsSync(API)) throw new Error('run `npm run build` first');
  const site = await startFixtureSite();
  const models = await startModelServer();
  const body = JSON.stringify({
    url: `${site.url}/page/1/`,
    schema: { quotes: [{ text: 'string', author: 'string', tags: ['string'] }] },
    fetch_mode: 'static',
    llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-bench', base_url: models.openaiBaseUrl },
  });
  const common = {
    GLEANER_BOOTSTRAP_KEY: KEY,
    GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_BROWSER_ENABLED: 'false',
  };
  const results = [];
  const children: ChildProcess[] = [];
  const servers: StartedServer[] = [];
  try {
    const port = await freePort();
    children.push(spawnApp(API, [], { ...common, PORT: String(port), DATA_DIR: mkdtempSync(join(tmpdir(), 'gleaner-bench-x-')) }));
    await waitHealthy(`http://127.0.0.1:${port}`);
    results.push(await measure('embedded', `http://127.0.0.1:${port}`, body));
    children.pop()!.kill('SIGTERM');

    const redis = await startRedis();
    const mongo = await startMongoWire();
    servers.push(redis, mongo);
    const cluster = {
      ...common,
      MONGODB_URI: `${mongo.url}/bench`,
      REDIS_URL: redis.url,
      GLEANER_SECRET: 'bench-secret-0123456789abcdef0123456789',
    };
    const apiPort = await freePort();
    children.push(spawnApp(API, ['--role=api'], { ...cluster, PORT: String(apiPort) }));
    await waitHealthy(`http://127.0.0.1:${apiPort}`);
    const crawlerPort = await freePort();
    children.push(spawnApp(CRAWLER, [], { ...cluster, CRAWLER_PORT: String(crawlerPort) }));
    await waitHealthy(`http://127.0.0.1:${crawlerPort}`);
    results.push(await measure('cluster (1 API + 1 crawler)', `http://127.0.0.1:${apiPort}`, body));
  } finally {
    for (const child of children) child.kill('SIGTERM');
    for (const server of servers) await server.stop();
    await site.close();
    await models.close();
  }
  const embedded = results[0];
  const summary = {
    benchmark: 'extract: POST /api/v1/extract, fixture page /page/1/ (10 quotes), instant local model (OpenAI protocol), 16 concurrent',
    date: new Date().toISOString(),
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
    duration_s: DURATION,
    results,
    note: 'At 16 concurrent, p50 = 16 / throughput (Little’s law): p50 <= 25 ms there would need >= 640 extractions/s, so the latency target is checked on a single client and throughput at 16.',
    targets: { embedded_p50_ms: 25, embedded_extractions_per_s: 100 },
    met: embedded.single_client_latency_ms.p50 <= 25 && embedded.extractions_per_s >= 100 && embedded.non_2xx === 0,
  };
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench-results', 'extract.json'), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(JSON.stringify(summary, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
