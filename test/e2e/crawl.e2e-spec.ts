import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { crawlSuite } from './crawl.suite';
import { startEmbedded, type RunningApp } from './embedded-app';
import { siteSecretsSuite } from './site-secrets.suite';

jest.setTimeout(180_000);

let play: Playground;
let models: ModelServer;
let receiver: WebhookReceiver;

export function crawlTestEnv(playground: Playground): Record<string, string> {
  return {
    // Loopback is opened as a range, so the guard still refuses other private addresses (the "evil" redirect).
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: playground.resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_ROBOTS_RETRY_MS: '500',
    GLEANER_LLM_RETRIES: '0',
    GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
  };
}

beforeAll(async () => {
  play = await startPlayground();
  models = await startModelServer();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await play?.close();
  await models?.close();
  await receiver?.close();
});

describe('crawl, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(crawlTestEnv(play));
  });
  afterAll(async () => app?.close());
  crawlSuite(() => ({ app, play, models, receiver }));
  siteSecretsSuite(() => ({ app, play, models, receiver }));
});

describeWith(['mongodb', 'redis'], 'crawl, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...crawlTestEnv(play),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_crawl')}`,
      REDIS_URL: `${serverUrl('redis')}/10`,
      GLEANER_SECRET: 'crawl-test-secret-0123456789abcdefgh',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'K'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  crawlSuite(() => ({ app, play, models, receiver }));
  siteSecretsSuite(() => ({ app, play, models, receiver }));
});
