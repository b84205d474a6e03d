/**
 * A crawl with fetch_mode `auto` through a real Chromium: a JavaScript-only page is fetched statically,
 * found to need the browser and fetched again with it, and the host is remembered (in process when
 * embedded, in Redis in cluster mode), so the host's next pages go to the browser at once.
 */
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

jest.setTimeout(180_000);

let play: Playground;
let models: ModelServer;

beforeAll(async () => {
  play = await startPlayground();
  models = await startModelServer();
});
afterAll(async () => {
  await play?.close();
  await models?.close();
});

const env = (): Record<string, string> => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_LLM_RETRIES: '0',
  GLEANER_BROWSER_MAX_BROWSERS: '1',
});

/** A crawl of `host` from its home page, one page at a time and one link deep, followed to its end. */
async function crawlToEnd(app: RunningApp, host: string, schema: Record<string, string>, fetchMode: 'auto' | 'dynamic'): Promise<any> {
  const started = await http(app.baseUrl, 'POST', '/api/v1/crawl', {
    key: app.adminKey,
    body: {
      url: play.url(host, '/'),
      schema,
      llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-browser', base_url: models.openaiBaseUrl },
      options: { max_depth: 1, concurrency: 1, fetch_mode: fetchMode },
    },
  });
  expect(started.status).toBe(202);
  return waitFor(async () => {
    const body = (await http(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job_id}`, { key: app.adminKey })).body;
    return ['completed', 'failed', 'cancelled'].includes(body.status) ? body : null;
  }, 150_000);
}

function browserCrawlSuite(getApp: () => RunningApp): void {
  it('fetches a JavaScript-only page with the browser, and the host’s next pages with the browser at once', async () => {
    const app = getApp();
    // A host no earlier run has seen (the cluster's memory of hosts lives in Redis).
    const host = `spa${Date.now() % 1_000_000}.test`;
    const since = Date.now();
    // One page at a time, so the first JavaScript page is known before the next one starts.
    const job = await crawlToEnd(app, host, { name: 'string', price: 'string', sku: 'string' }, 'auto');
    expect(job).toMatchObject({ status: 'completed', page_count: 4, failed_count: 0 });

    const items = (await http(app.baseUrl, 'GET', `/api/v1/jobs/${job.id}/results`, { key: app.adminKey })).body as any[];
    const widgets = items.filter((i) => /\/app\/\d$/.test(i.url)).sort((a, b) => a.url.localeCompare(b.url));
    expect(widgets.map((w) => w.data)).toEqual(
      [1, 2, 3].map((n) => expect.objectContaining({ name: `Widget ${n}`, price: `$${n}.00`, sku: `APP-${n}` })),
    );

    const seen = play.requestsTo(host).filter((r) => r.at >= since);
    const appPages = seen.filter((r) => /^\/app\/\d$/.test(r.path));
    // The first JavaScript page twice (static, then the browser); the two after it once (the browser).
    const perPage = [1, 2, 3].map((n) => appPages.filter((r) => r.path === `/app/${n}`).length).sort();
    expect(perPage).toEqual([1, 1, 2]);
    // Only a browser runs the page's script.
    expect(seen.filter((r) => r.path === '/app.js')).toHaveLength(3);
  });

  it('fails a page whose script navigates to a refused address (ssrf_blocked); the rest of the crawl goes on', async () => {
    const app = getApp();
    const host = `away${Date.now() % 1_000_000}.test`;
    const job = await crawlToEnd(app, host, { name: 'string' }, 'dynamic');
    expect(job).toMatchObject({ status: 'completed', page_count: 2, failed_count: 1 });
    const entries = (await http(app.baseUrl, 'GET', `/api/v1/jobs/${job.id}/crawl-map`, { key: app.adminKey })).body.entries as any[];
    expect(entries.find((e) => e.url === play.url(host, '/leave'))).toMatchObject({ status: 'failed', error_category: 'ssrf_blocked' });
    expect(entries.find((e) => e.url === play.url(host, '/stay'))).toMatchObject({ status: 'completed' });
    const items = (await http(app.baseUrl, 'GET', `/api/v1/jobs/${job.id}/results`, { key: app.adminKey })).body as any[];
    expect(JSON.stringify(items)).not.toContain('chrome-error');
  });
}

describe('crawl with the browser, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  browserCrawlSuite(() => app);
});

describeWith(['mongodb', 'redis'], 'crawl with the browser, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_crawl_browser')}`,
      REDIS_URL: `${serverUrl('redis')}/12`,
      GLEANER_SECRET: 'crawl-browser-secret-0123456789abcdefg',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'B'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  browserCrawlSuite(() => app);
});
