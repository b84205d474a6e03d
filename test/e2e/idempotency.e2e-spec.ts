/**
 * Idempotency-Key on the job-creating POSTs, on both deployments: a retry gets the first answer and
 * starts no job, another body is a 422, a request still being answered a 409, keys are per tenant, a
 * refused request frees its key, and the answer survives a restart (embedded: the same data directory;
 * cluster: another API replica on the same store).
 */
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, tempDir, waitFor } from './helpers';

jest.setTimeout(180_000);

let play: Playground;
let models: ModelServer;
const baseEnv = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_LLM_RETRIES: '0',
});

beforeAll(async () => {
  play = await startPlayground();
  models = await startModelServer();
});
afterAll(async () => {
  await play?.close();
  await models?.close();
});

interface Deployment {
  first: RunningApp;
  /** Another API on the same store: a replica (cluster) or the same app restarted (embedded). */
  second(): Promise<RunningApp>;
}

function idempotencySuite(get: () => Deployment): void {
  let d: Deployment;
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-idem', base_url: models.openaiBaseUrl });
  const post = (app: RunningApp, path: string, body: unknown, key?: string, apiKey = app.adminKey) =>
    http(app.baseUrl, 'POST', path, { key: apiKey, body, headers: key ? { 'idempotency-key': key } : {} });
  const jobCount = async (app: RunningApp, apiKey = app.adminKey) =>
    (await http(app.baseUrl, 'GET', '/api/v1/jobs?limit=100', { key: apiKey })).body.jobs.length as number;
  const unique = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`;

  beforeAll(() => {
    d = get();
  });

  it('a retried crawl, batch or extract gets the first answer and starts no second job; another body is a 422', async () => {
    const app = d.first;
    const crawl = { url: play.url('shop.test', '/about'), schema: { name: 'string' }, llm_config: llm(), options: { max_depth: 0 } };
    const key = unique('crawl');
    const before = await jobCount(app);
    const a = await post(app, '/api/v1/crawl', crawl, key);
    const b = await post(
      app,
      '/api/v1/crawl',
      { options: { max_depth: 0 }, llm_config: llm(), schema: { name: 'string' }, url: crawl.url },
      key,
    );
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body.job_id).toBe(a.body.job_id);
    expect(b.headers.get('location')).toBe(a.headers.get('location'));
    expect(b.headers.get('idempotency-replayed')).toBe('true');
    expect(a.headers.get('idempotency-replayed')).toBeNull();

    const batchKey = unique('batch');
    const batch = { urls: [play.url('h5.test', '/p/1')], schema: { name: 'string' }, llm_config: llm() };
    const c = await post(app, '/api/v1/batch/extract', batch, batchKey);
    const e = await post(app, '/api/v1/batch/extract', batch, batchKey);
    expect([c.status, e.status, e.body.job_id]).toEqual([202, 202, c.body.job_id]);

    const extractKey = unique('extract');
    const extract = { url: play.url('shop.test', '/product/7'), schema: { name: 'string' }, llm_config: llm() };
    const x = await post(app, '/api/v1/extract', extract, extractKey);
    const y = await post(app, '/api/v1/extract', extract, extractKey);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect(y.body).toEqual(x.body);
    expect(await jobCount(app)).toBe(before + 3);

    const other = await post(app, '/api/v1/crawl', { ...crawl, url: play.url('shop.test', '/catalog/page/1') }, key);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ type: '/problems/idempotency-key-reused', errors: [{ location: 'header.idempotency-key' }] });
    expect(await jobCount(app)).toBe(before + 3);
  });

  it('keys are per tenant; a refused request frees its key; a malformed key is a 422', async () => {
    const app = d.first;
    const key = unique('shared');
    const body = { url: play.url('h6.test', '/'), schema: { name: 'string' }, llm_config: llm(), options: { max_depth: 0 } };
    const mine = await post(app, '/api/v1/crawl', body, key);
    const tenant = (await http(app.baseUrl, 'POST', '/api/v1/users', { key: app.adminKey, body: { name: unique('tenant') } })).body.key.key;
    const theirs = await post(app, '/api/v1/crawl', body, key, tenant);
    expect([mine.status, theirs.status]).toEqual([202, 202]);
    expect(theirs.body.job_id).not.toBe(mine.body.job_id);

    const fixKey = unique('fix');
    const refused = await post(app, '/api/v1/crawl', { ...body, options: { max_depth: 99 } }, fixKey);
    expect(refused.status).toBe(422);
    const corrected = await post(app, '/api/v1/crawl', body, fixKey);
    expect(corrected.status).toBe(202);

    const bad = await post(app, '/api/v1/crawl', body, 'x'.repeat(256));
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([{ location: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' }]);
  });

  it('a retry while the first request is still being answered is a 409 with Retry-After', async () => {
    const app = d.first;
    const gate = unique('idem-gate');
    const key = unique('slow');
    const body = { url: play.url('shop.test', `/gate/${gate}`), schema: { name: 'string' }, llm_config: llm() };
    const first = post(app, '/api/v1/extract', body, key);
    await waitFor(async () => (play.held(gate) > 0 ? true : null));
    const second = await post(app, '/api/v1/extract', body, key);
    expect(second.status).toBe(409);
    expect(second.body.type).toBe('/problems/idempotency-key-in-use');
    expect(second.headers.get('retry-after')).toBe('1');
    play.openGate(gate);
    expect((await first).status).toBeLessThan(600);
  });

  it('another API on the same store (a replica, or the app after a restart) answers a retry with the first answer', async () => {
    const key = unique('restart');
    const body = { url: play.url('h7.test', '/'), schema: { name: 'string' }, llm_config: llm(), options: { max_depth: 0 } };
    const a = await post(d.first, '/api/v1/crawl', body, key);
    expect(a.status).toBe(202);
    const second = await d.second();
    const b = await post(second, '/api/v1/crawl', body, key, d.first.adminKey);
    expect(b.status).toBe(202);
    expect(b.body.job_id).toBe(a.body.job_id);
    expect(b.headers.get('idempotency-replayed')).toBe('true');
  });
}

describe('Idempotency-Key, embedded deployment', () => {
  const dataDir = tempDir();
  let app: RunningApp;
  let restarted: RunningApp | undefined;
  beforeAll(async () => {
    app = await startEmbedded({ ...baseEnv(), DATA_DIR: dataDir });
  });
  afterAll(async () => {
    if (restarted) await restarted.close();
    else await app?.close();
  });
  idempotencySuite(() => ({
    first: app,
    second: async () => {
      const key = app.adminKey;
      await app.close();
      restarted = await startEmbedded({ ...baseEnv(), DATA_DIR: dataDir });
      restarted.adminKey = key;
      return restarted;
    },
  }));
});

describeWith(['mongodb', 'redis'], 'Idempotency-Key, cluster deployment', () => {
  let app: RunningApp;
  let replica: RunningApp | undefined;
  const env = () => ({
    ...baseEnv(),
    MONGODB_URI: `${serverUrl('mongodb')}/${db}`,
    REDIS_URL: `${serverUrl('redis')}/13`,
    GLEANER_SECRET: 'idem-test-secret-0123456789abcdefghij',
    GLEANER_BOOTSTRAP_KEY: 'glk_' + 'I'.repeat(40),
  });
  const db = uniqueDbName('gleaner_idem');
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => {
    await replica?.close();
    await app?.close();
  });
  idempotencySuite(() => ({
    first: app,
    second: async () => {
      replica = await startEmbedded(env());
      return replica;
    },
  }));
});
