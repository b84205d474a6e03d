/**
 * Redis goes down (docs/operations.md "Redis goes down"), in the cluster deployment: two API replicas and a
 * crawler on their own redis-server (with its append-only file, as the stack's) and the MongoDB-wire server.
 * Redis is killed with -9 while a job is provably in flight. While it is down every replica answers 503
 * problem+json with Retry-After (never a 500: ioredis's errors reach the error filter as the outage, and a
 * request waits for Redis no longer than for the store), /ready says so and /health does not; once Redis is
 * back on its file, every replica answers again by itself and the job finishes once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGates, type Gates } from '../fixtures/gate';
import { startMongoWire, startRedis, type StartedServer } from '../harness/servers';
import { http, waitFor } from './helpers';
import { TEST_API_MAIN, TEST_CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(240_000);

const BOOTSTRAP = 'glk_' + 'R'.repeat(20) + 'e'.repeat(20);

describe('Redis goes down (cluster: 2 API replicas, 1 crawler, Redis killed with -9 and restarted on its AOF)', () => {
  const processes: AppProcess[] = [];
  let dir: string;
  let redis: StartedServer;
  let store: StartedServer;
  let gates: Gates;
  let apis: AppProcess[];

  beforeAll(async () => {
    assertBuilt();
    gates = await startGates();
    dir = mkdtempSync(join(tmpdir(), 'gleaner-redis-outage-'));
    redis = await startRedis({ aofDir: dir });
    store = await startMongoWire();
    const env = {
      MONGODB_URI: `${store.url}/gleaner_redis_outage`,
      REDIS_URL: redis.url,
      GLEANER_SECRET: 'redis-outage-test-secret-0123456789abcd',
      GLEANER_BOOTSTRAP_KEY: BOOTSTRAP,
      // The test job's gate is on this machine: its requests pass the address guard.
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_BROWSER_ENABLED: 'false',
    };
    apis = [
      await startProcess('api-1', TEST_API_MAIN, ['--role=api'], env, 'PORT'),
      await startProcess('api-2', TEST_API_MAIN, ['--role=api'], env, 'PORT'),
    ];
    processes.push(...apis);
    processes.push(await startProcess('crawler', TEST_CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await redis?.stop();
    await store?.stop();
    await gates?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After on every replica while Redis is down, and every replica and the job in flight recover by themselves', async () => {
    const [first] = apis;
    const job = await http(first.url, 'POST', '/api/v1/test-jobs', {
      key: BOOTSTRAP,
      body: { steps: 6, step_ms: 20, hold_at: 3, gate_url: gates.urlOf('redis-outage') },
    });
    expect(job.status).toBe(201);
    const id = job.body.id as string;
    // Provably in flight: three steps recorded, the fourth held at the gate.
    await waitFor(async () => (await http(first.url, 'GET', `/api/v1/jobs/${id}`, { key: BOOTSTRAP })).body.page_count === 3, 60_000);

    process.kill(redis.pid, 'SIGKILL');
    await redis.stop();
    const port = Number(new URL(redis.url).port);

    for (const api of apis) {
      const answers = await Promise.all(
        (
          [
            ['GET', `/api/v1/jobs/${id}`, undefined],
            ['GET', '/api/v1/jobs', undefined],
            ['POST', '/api/v1/test-jobs', { steps: 1, step_ms: 0 }],
          ] as const
        ).map(async ([method, path, body]) => ({ path, res: await http(api.url, method, path, { key: BOOTSTRAP, body }) })),
      );
      for (const { path, res } of answers) {
        expect({ api: api.name, path, status: res.status }).toEqual({ api: api.name, path, status: 503 });
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(res.body).toMatchObject({
          type: '/problems/service-unavailable',
          status: 503,
          detail: expect.stringMatching(/queue is not reachable/),
        });
        expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|Redis|retries/);
      }
      expect((await http(api.url, 'GET', '/ready')).status).toBe(503);
      expect((await http(api.url, 'GET', '/health')).status).toBe(200);
    }

    gates.open('redis-outage');
    redis = await startRedis({ port, aofDir: dir });

    // Every replica answers again by itself.
    for (const api of apis) {
      await waitFor(async () => (await http(api.url, 'GET', '/ready')).status === 200, 60_000, 200);
      await waitFor(async () => (await http(api.url, 'GET', `/api/v1/jobs/${id}`, { key: BOOTSTRAP })).status === 200, 60_000, 200);
    }
    const done = await waitFor(async () => {
      const res = await http(first.url, 'GET', `/api/v1/jobs/${id}`, { key: BOOTSTRAP });
      return res.status === 200 && ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : null;
    }, 120_000);
    expect(done).toMatchObject({ status: 'completed', page_count: 6 });
    const results = await http(apis[1].url, 'GET', `/api/v1/jobs/${id}/results`, { key: BOOTSTRAP });
    expect((results.body as Array<{ url: string }>).map((r) => r.url).sort()).toEqual([0, 1, 2, 3, 4, 5].map((s) => `test://job#${s}`));
    for (const api of apis) expect(api.output()).not.toMatch(/"level":"fatal"/);
  });
});
