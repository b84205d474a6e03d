import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startDocsSite, type DocsSite } from '../fixtures/docs-site/docs-site';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { startEmbedded, type RunningApp } from './embedded-app';
import { scrapeSuite } from './scrape.suite';

jest.setTimeout(120_000);

let site: DocsSite;
let models: ModelServer;
let receiver: WebhookReceiver;

function scrapeTestEnv(): Record<string, string> {
  return {
    // Loopback opened as a range; the fixture's names resolve to it.
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: site.resolve,
    GLEANER_BROWSER_ENABLED: 'true',
    GLEANER_BROWSER_MAX_BROWSERS: '1',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_LLM_RETRIES: '0',
    GLEANER_PDF_MAX_PAGES: '10',
    GLEANER_EXTRACT_WAIT_MS: '60000',
    GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
  };
}

beforeAll(async () => {
  site = await startDocsSite();
  models = await startModelServer();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await site?.close();
  await models?.close();
  await receiver?.close();
});

describe('scrape, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(scrapeTestEnv());
  });
  afterAll(async () => app?.close());
  scrapeSuite(() => ({ app, site, models, receiver }), { embedded: true });
});

describeWith(['mongodb', 'redis'], 'scrape, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...scrapeTestEnv(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_scrape')}`,
      REDIS_URL: `${serverUrl('redis')}/2`,
      GLEANER_SECRET: 'scrape-test-secret-0123456789abcdefgh',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'S'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  scrapeSuite(() => ({ app, site, models, receiver }), { embedded: false });
});
