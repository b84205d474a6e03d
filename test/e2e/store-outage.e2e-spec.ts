/**
 * The store goes down (docs/operations.md "The store goes down"), in the cluster deployment: an API replica
 * and a crawler on Redis and the MongoDB-wire server in its file mode, which is killed with -9 while a job is
 * provably in flight and restarted on its file. While it is down the API answers 503 problem+json with
 * Retry-After (never a 500, never a hang), /ready says so and /health does not; an open job stream stays open;
 * the job waits and resumes once the store is back, and finishes once with every step recorded once. The page
 * archive's routes (a stored page, a WARC export, a re-extraction, a deletion, a WARC upload) answer the same
 * 503 (test/contract/archive-gridfs-outage.int-spec.ts: GridFS errors, a read stream included, become the outage).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGates, type Gates } from '../fixtures/gate';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { describeWith, serverUrl } from '../harness/require-server';
import { startMongoWire, type StartedServer } from '../harness/servers';
import { http, readSse, waitFor } from './helpers';
import { TEST_API_MAIN, TEST_CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(180_000);

const BOOTSTRAP = 'glk_' + 'O'.repeat(20) + 'u'.repeat(20);

describeWith(['redis'], 'the store goes down (cluster: 1 API, 1 crawler, the store killed with -9 and restarted)', () => {
  const processes: AppProcess[] = [];
  let dir: string;
  let store: StartedServer;
  let api: AppProcess;
  let gates: Gates;
  let play: Playground;
  let models: ModelServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    assertBuilt();
    gates = await startGates();
    play = await startPlayground();
    models = await startModelServer();
    dir = mkdtempSync(join(tmpdir(), 'gleaner-outage-'));
    store = await startMongoWire({ dataFile: join(dir, 'store.mv.db') });
    const redisDb = 5;
    spawnSync('redis-cli', ['-u', `${serverUrl('redis')}/${redisDb}`, 'flushdb']);
    env = {
      MONGODB_URI: `${store.url}/gleaner_outage`,
      REDIS_URL: `${serverUrl('redis')}/${redisDb}`,
      GLEANER_SECRET: 'outage-test-secret-0123456789abcdefgh',
      GLEANER_BOOTSTRAP_KEY: BOOTSTRAP,
      // The test job's gate is on this machine: its requests pass the address guard.
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      // Every request reads its key from the store: the outage is met by the key lookup too.
      GLEANER_AUTH_CACHE_MS: '0',
      // The archive's test extracts a playground page.
      GLEANER_RESOLVE: play.resolve,
      GLEANER_BROWSER_ENABLED: 'false',
      GLEANER_LLM_RETRIES: '0',
    };
    api = await startProcess('api', TEST_API_MAIN, ['--role=api'], env, 'PORT');
    processes.push(api);
    processes.push(await startProcess('crawler', TEST_CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await store?.stop();
    await gates?.close();
    await play?.close();
    await models?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After while the store is down, and the job in flight resumes and finishes once', async () => {
    const job = await http(api.url, 'POST', '/api/v1/test-jobs', {
      key: BOOTSTRAP,
      body: { steps: 6, step_ms: 20, hold_at: 3, gate_url: gates.urlOf('outage') },
    });
    expect(job.status).toBe(201);
    const id = job.body.id as string;
    // Provably in flight: three steps recorded, the fourth held at the gate.
    await waitFor(async () => (await http(api.url, 'GET', `/api/v1/jobs/${id}`, { key: BOOTSTRAP })).body.page_count === 3, 60_000);
    const stream = readSse(`${api.url}/api/v1/jobs/${id}/stream`, { key: BOOTSTRAP, timeoutMs: 150_000 });
    await waitFor(async () => /^gleaner_sse_clients(\{[^}]*\})? 1$/m.test((await http(api.url, 'GET', '/metrics')).text), 30_000);

    process.kill(store.pid, 'SIGKILL');
    await store.stop();
    const port = Number(new URL(store.url).port);

    for (const [method, path, body] of [
      ['GET', `/api/v1/jobs/${id}`, undefined],
      ['GET', '/api/v1/jobs', undefined],
      ['POST', '/api/v1/test-jobs', { steps: 1, step_ms: 0 }],
    ] as const) {
      const res = await http(api.url, method, path, { key: BOOTSTRAP, body });
      expect({ path, status: res.status }).toEqual({ path, status: 503 });
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toMatchObject({ type: '/problems/service-unavailable', status: 503 });
      expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|Mongo/);
    }
    expect((await http(api.url, 'GET', '/ready')).status).toBe(503);
    expect((await http(api.url, 'GET', '/health')).status).toBe(200);

    // The job goes on while the store is down: its next step cannot be recorded, so it waits.
    gates.open('outage');
    store = await startMongoWire({ dataFile: join(dir, 'store.mv.db'), port });

    const done = await waitFor(async () => {
      const res = await http(api.url, 'GET', `/api/v1/jobs/${id}`, { key: BOOTSTRAP });
      return res.status === 200 && ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : null;
    }, 120_000);
    expect(done).toMatchObject({ status: 'completed', page_count: 6 });
    const results = await http(api.url, 'GET', `/api/v1/jobs/${id}/results`, { key: BOOTSTRAP });
    expect((results.body as Array<{ url: string }>).map((r) => r.url).sort()).toEqual([0, 1, 2, 3, 4, 5].map((s) => `test://job#${s}`));

    // The stream stayed open across the outage and ended with the one complete event.
    const events = await stream;
    expect(events.ended).toBe(true);
    const ids = events.events.map((e) => Number(e.id));
    expect(ids.every((n, i) => i === 0 || n > ids[i - 1])).toBe(true);
    expect(events.events.filter((e) => e.event === 'complete')).toHaveLength(1);
    expect(events.events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'completed', page_count: 6 } });
    expect((await http(api.url, 'GET', '/ready')).status).toBe(200);
  });

  it("the archive's routes answer the same 503 while the store is down, and serve the page again once it is back", async () => {
    // A replica whose key cache holds the key: the requests pass authentication and meet the outage in the archive's routes.
    const cached = await startProcess('api-cached', TEST_API_MAIN, ['--role=api'], { ...env, GLEANER_AUTH_CACHE_MS: '60000' }, 'PORT');
    processes.push(cached);
    const call = (method: string, path: string, body?: unknown) => http(cached.url, method, path, { key: BOOTSTRAP, body });
    const extracted = await call('POST', '/api/v1/extract', {
      url: play.url('shop.test', '/product/2'),
      schema: { name: 'string', sku: 'string' },
      llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-outage', base_url: models.openaiBaseUrl },
      archive: true,
    });
    expect(extracted.status).toBe(200);
    const jobId = extracted.body.job_id as string;
    const [item] = (await call('GET', `/api/v1/jobs/${jobId}/results`)).body as Array<{ id: string }>;
    const pagePath = `/api/v1/jobs/${jobId}/results/${item.id}/page`;
    expect((await call('GET', pagePath)).status).toBe(200);
    expect((await call('GET', `/api/v1/jobs/${jobId}/warc`)).status).toBe(200);

    process.kill(store.pid, 'SIGKILL');
    await store.stop();
    const port = Number(new URL(store.url).port);
    for (const [method, path, body] of [
      ['GET', pagePath, undefined],
      ['GET', `${pagePath}?view=text`, undefined],
      ['GET', `/api/v1/jobs/${jobId}/warc`, undefined],
      ['POST', `/api/v1/jobs/${jobId}/reextract`, { schema: { sku: 'string' } }],
      ['DELETE', `/api/v1/jobs/${jobId}`, undefined],
    ] as const) {
      const res = await call(method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 503 });
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toMatchObject({ type: '/problems/service-unavailable', status: 503 });
      expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|Mongo|GridFS/);
    }
    const upload = await fetch(`${cached.url}/api/v1/warc-extract?schema_id=any`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/warc' },
      body: 'WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n',
    });
    expect(upload.status).toBe(503);
    expect(upload.headers.get('retry-after')).toBe('5');

    store = await startMongoWire({ dataFile: join(dir, 'store.mv.db'), port });
    const page = await waitFor(async () => {
      const res = await call('GET', pagePath);
      return res.status === 200 ? res : null;
    }, 60_000);
    expect(page.text).toContain('Name:');
    expect((await call('GET', `/api/v1/jobs/${jobId}`)).body).toMatchObject({ status: 'completed' });
    expect(cached.output()).not.toMatch(/"level":"fatal"/);
  });
});
