import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { archiveExtractSuite } from './archive-extract.suite';
import { archiveSuite } from './archive.suite';
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

jest.setTimeout(240_000);

const WARC_MAX_BYTES = 2 * 1024 * 1024;
let play: Playground;
let models: ModelServer;

const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_LLM_RETRIES: '0',
  GLEANER_WARC_MAX_BYTES: String(WARC_MAX_BYTES),
});

beforeAll(async () => {
  play = await startPlayground();
  models = await startModelServer();
});
afterAll(async () => {
  await play?.close();
  await models?.close();
});

describe('page archive, embedded deployment (SQLite + files)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  archiveSuite(() => ({ app, play, models, warcMaxBytes: WARC_MAX_BYTES }));
  describe('extracts', () => archiveExtractSuite(() => ({ app, play, models, warcMaxBytes: WARC_MAX_BYTES })));
});

describeWith(['mongodb', 'redis'], 'page archive, cluster deployment (MongoDB + GridFS)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_archive')}`,
      REDIS_URL: `${serverUrl('redis')}/9`,
      GLEANER_SECRET: 'archive-test-secret-0123456789abcdef',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'R'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  archiveSuite(() => ({ app, play, models, warcMaxBytes: WARC_MAX_BYTES }));
  describe('extracts', () => archiveExtractSuite(() => ({ app, play, models, warcMaxBytes: WARC_MAX_BYTES })));
});

describe('page archive limits, embedded deployment: GLEANER_ARCHIVE_TTL_DAYS and the per-tenant size cap', () => {
  let app: RunningApp;
  beforeAll(async () => {
    // A cap of one byte: the first body a tenant stores puts it over the cap.
    app = await startEmbedded({ ...env(), GLEANER_ARCHIVE_TTL_DAYS: '2', GLEANER_ARCHIVE_MAX_BYTES_PER_TENANT: '1' });
  });
  afterAll(async () => app?.close());

  const metric = async (labels: string): Promise<number> => {
    const text = (await http(app.baseUrl, 'GET', '/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith('gleaner_archive_pages_total{') && l.includes(labels));
    return Number(line?.split(' ').at(-1) ?? NaN);
  };

  it('a tenant over its cap keeps no new page, yet every page is extracted; another tenant is not affected; pages expire after the configured days', async () => {
    const crawl = async (key: string) => {
      const started = await http(app.baseUrl, 'POST', '/api/v1/crawl', {
        key,
        body: {
          url: play.url('shop.test', '/catalog/page/1'),
          schema: { name: 'string', price: 'string' },
          llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-archive-test', base_url: models.openaiBaseUrl },
          // One page at a time: the first kept body is counted before the next page asks.
          options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 3, concurrency: 1 },
        },
      });
      expect(started.status).toBe(202);
      const job = await waitFor(async () => {
        const view = (await http(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job_id}`, { key })).body;
        return ['completed', 'failed', 'cancelled'].includes(view.status) ? view : null;
      }, 120_000);
      const items = (await http(app.baseUrl, 'GET', `/api/v1/jobs/${job.id}/results`, { key })).body as any[];
      const pages = await Promise.all(
        items.map(async (i) => (await http(app.baseUrl, 'GET', `/api/v1/jobs/${job.id}/results/${i.id}/page`, { key })).status),
      );
      return { job, items, pages };
    };
    const stored = await metric('outcome="stored"');
    const refused = await metric('outcome="refused_cap"');
    const first = await crawl(app.adminKey);
    expect(first.job).toMatchObject({ status: 'completed', page_count: 3, failed_count: 0 });
    expect(first.items.every((i) => i.status === 'completed' && i.data.name)).toBe(true);
    expect(first.pages.sort()).toEqual([200, 404, 404]);
    expect((await metric('outcome="stored"')) - stored).toBe(1);
    expect((await metric('outcome="refused_cap"')) - refused).toBe(2);

    const other = (await http(app.baseUrl, 'POST', '/api/v1/users', { key: app.adminKey, body: { name: `capped-${Date.now()}` } })).body.key
      .key as string;
    const second = await crawl(other);
    expect(second.job).toMatchObject({ status: 'completed', page_count: 3 });
    expect(second.pages.sort()).toEqual([200, 404, 404]);

    // Retention: the kept page expires GLEANER_ARCHIVE_TTL_DAYS after it was fetched.
    const store = app.app.get<DocumentStore>(DOCUMENT_STORE);
    const kept = await (await store.collection<any>({ name: 'archive_pages', indexes: [] })).find({ job_id: first.job.id });
    expect(kept).toHaveLength(1);
    expect(Date.parse(kept[0].expires_at) - Date.parse(kept[0].fetched_at)).toBeGreaterThanOrEqual(2 * 24 * 3600 * 1000);
    expect(Date.parse(kept[0].expires_at) - Date.parse(kept[0].fetched_at)).toBeLessThan(2 * 24 * 3600 * 1000 + 60_000);
  });
});

describe('page archive off for the server, embedded deployment (GLEANER_ARCHIVE_TTL_DAYS=0)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({ ...env(), GLEANER_ARCHIVE_TTL_DAYS: '0' });
  });
  afterAll(async () => app?.close());

  it('keeps no page even for a crawl that asks for the archive; a re-extraction skips them all archive_missing; WARC in is a 409', async () => {
    const call = (method: string, path: string, body?: unknown) => http(app.baseUrl, method, path, { key: app.adminKey, body });
    const llm = { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-archive-test', base_url: models.openaiBaseUrl };
    const done = (id: string) =>
      waitFor(async () => {
        const view = (await call('GET', `/api/v1/jobs/${id}`)).body;
        return ['completed', 'failed', 'cancelled'].includes(view.status) ? view : null;
      }, 120_000);
    const started = await call('POST', '/api/v1/crawl', {
      url: play.url('shop.test', '/catalog/page/1'),
      schema: { name: 'string' },
      llm_config: llm,
      options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: 2, archive: true },
    });
    const crawl = await done(started.body.job_id);
    expect(crawl).toMatchObject({ status: 'completed', page_count: 2 });
    const [item] = (await call('GET', `/api/v1/jobs/${crawl.id}/results`)).body;
    expect((await call('GET', `/api/v1/jobs/${crawl.id}/results/${item.id}/page`)).status).toBe(404);
    const re = await call('POST', `/api/v1/jobs/${crawl.id}/reextract`, { llm_config: llm });
    expect(re.status).toBe(202);
    const map = (await call('GET', `/api/v1/jobs/${(await done(re.body.job_id)).id}/crawl-map`)).body;
    expect(map.skipped_by_reason).toEqual({ archive_missing: 2 });
    // A WARC file has nowhere to be read into: a 409 that says why.
    const warc = await fetch(`${app.baseUrl}/api/v1/warc-extract?schema_id=any`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.adminKey}`, 'content-type': 'application/warc' },
      body: 'WARC/1.1\r\n',
    });
    expect(warc.status).toBe(409);
    expect(((await warc.json()) as { detail: string }).detail).toMatch(/archive is off on this server/);
  });
});
