import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { startEmbedded, type RunningApp } from './embedded-app';
import { provenanceSuite } from './provenance.suite';

jest.setTimeout(180_000);

let play: Playground;
let models: ModelServer;
let receiver: WebhookReceiver;

const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_LLM_RETRIES: '0',
  GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
  // Every extraction of the suite must finish within the wait on a busy machine.
  GLEANER_EXTRACT_WAIT_MS: '30000',
});

beforeAll(async () => {
  [play, models, receiver] = await Promise.all([startPlayground(), startModelServer(), startWebhookReceiver()]);
});
afterAll(async () => {
  await Promise.all([play?.close(), models?.close(), receiver?.close()]);
});

describe('provenance and grounding, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  provenanceSuite(() => ({ app, play, models, receiver }));
});

describeWith(['mongodb', 'redis'], 'provenance and grounding, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_provenance')}`,
      REDIS_URL: `${serverUrl('redis')}/9`,
      GLEANER_SECRET: 'provenance-test-secret-0123456789abcd',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'P'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  provenanceSuite(() => ({ app, play, models, receiver }));
});
