/**
 * npm run bench:api — authenticated GET /api/v1/jobs/{id} against the built embedded app, started as the
 * test app (test/test-app: the job read is a test job's) (autocannon, 50 connections, 10 s). Targets: >= 3,000 requests/s and p99 <= 30 ms on 2 cores.
 * The per-key rate limit is raised for the run (it is still evaluated on every request).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { buildTestApp, TEST_API_MAIN } from '../test-app/build';

const ROOT = join(__dirname, '..', '..');
const PRODUCTION_MAIN = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const KEY = 'glk_' + 'B'.repeat(20) + 'b'.repeat(20);
const PORT = Number(process.env.BENCH_PORT ?? 18_480);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

async function main(): Promise<void> {
  if (!existsSync(PRODUCTION_MAIN)) throw new Error('run `npm run build` first');
  buildTestApp();
  const child = spawn(process.execPath, [TEST_API_MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'gleaner-bench-')),
      GLEANER_BOOTSTRAP_KEY: KEY,
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const base = `http://127.0.0.1:${PORT}`;
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/health`).catch(() => null))?.ok) break;
      if (i > 300) throw new Error('app did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const job = (await (
      await fetch(`${base}/api/v1/test-jobs`, { method: 'POST', headers, body: JSON.stringify({ steps: 2, step_ms: 1 }) })
    ).json()) as { id: string };
    const path = `/api/v1/jobs/${job.id}`;
    // Warm-up (JIT, caches) before measuring.
    await autocannon({ url: `${base}${path}`, connections: 10, duration: 2, headers });
    const result = await autocannon({ url: `${base}${path}`, connections: CONNECTIONS, duration: DURATION, headers });
    const summary = {
      benchmark: 'api: authenticated GET /api/v1/jobs/{id}, embedded mode',
      date: new Date().toISOString(),
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
      connections: CONNECTIONS,
      duration_s: DURATION,
      requests_per_s_avg: result.requests.average,
      latency_ms: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
      non_2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      targets: { requests_per_s: 3000, p99_ms: 30 },
      met: result.requests.average >= 3000 && result.latency.p99 <= 30 && result.non2xx === 0,
    };
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench-results', 'api.json'), `${JSON.stringify(summary, null, 2)}\n`);
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    child.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
