import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { batchSuite } from './batch.suite';
import { startEmbedded, type RunningApp } from './embedded-app';

jest.setTimeout(180_000);

const MAX_URLS = 60;
let play: Playground;
let models: ModelServer;
let receiver: WebhookReceiver;

const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_ROBOTS_RETRY_MS: '500',
  GLEANER_LLM_RETRIES: '0',
  GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
  GLEANER_BATCH_MAX_URLS: String(MAX_URLS),
});

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

describe('batch extraction, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  batchSuite(() => ({ app, play, models, receiver, maxUrls: MAX_URLS }));
});

describeWith(['mongodb', 'redis'], 'batch extraction, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_batch')}`,
      REDIS_URL: `${serverUrl('redis')}/11`,
      GLEANER_SECRET: 'batch-test-secret-0123456789abcdefgh',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'B'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  batchSuite(() => ({ app, play, models, receiver, maxUrls: MAX_URLS }));
});
