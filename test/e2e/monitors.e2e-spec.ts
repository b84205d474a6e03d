import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { pageUrlOf, startModelServer, type Json, type ModelServer } from '../fixtures/model-server';
import { startMonitorSite, type MonitorSite } from '../fixtures/monitor-site';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { startEmbedded, type RunningApp } from './embedded-app';
import { monitorRefusalsSuite } from './monitors-refusals.suite';
import { monitorUrlsSuite } from './monitors-urls.suite';
import { monitorsSuite } from './monitors.suite';

jest.setTimeout(180_000);

let site: MonitorSite;
let models: ModelServer;
let receiver: WebhookReceiver;

/** The test ticks the scheduler itself (GLEANER_MONITOR_SCHEDULER=false: no timer), with a clock it sets. */
const monitorEnv = (): Record<string, string> => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_LLM_RETRIES: '0',
  GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
  GLEANER_MONITOR_SCHEDULER: 'false',
});

beforeAll(async () => {
  // Each describe gets a fresh site state: the suites change it.
  models = await startModelServer({
    answer: (request) => {
      const url = pageUrlOf(request);
      return ((url && site?.truth(url)) || undefined) as Json | undefined;
    },
  });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await models?.close();
  await receiver?.close();
});

describe('monitors, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    site = await startMonitorSite();
    app = await startEmbedded(monitorEnv());
  });
  afterAll(async () => {
    await app?.close();
    await site?.close();
  });
  monitorsSuite(() => ({ app, site, models, receiver }));
  describe('runs that cannot start', () => monitorRefusalsSuite(() => ({ app, site, models, receiver })));
  describe('a monitor of a list of pages', () => monitorUrlsSuite(() => ({ app, site, models, receiver })));
});

describeWith(['mongodb', 'redis'], 'monitors, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    site = await startMonitorSite();
    app = await startEmbedded({
      ...monitorEnv(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_monitors')}`,
      REDIS_URL: `${serverUrl('redis')}/11`,
      GLEANER_SECRET: 'monitor-test-secret-0123456789abcdefgh',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'M'.repeat(40),
    });
  });
  afterAll(async () => {
    await app?.close();
    await site?.close();
  });
  monitorsSuite(() => ({ app, site, models, receiver }));
  describe('runs that cannot start', () => monitorRefusalsSuite(() => ({ app, site, models, receiver })));
  describe('a monitor of a list of pages', () => monitorUrlsSuite(() => ({ app, site, models, receiver })));
});
