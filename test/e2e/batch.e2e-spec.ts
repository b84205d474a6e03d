import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { batchSuite } from './batch.suite';
import { startEmbedded, type RunningApp } from './embedded-app';
import { DEAD_POOL, PROXY_POOL, proxyPoolsSuite } from './proxy-pools.suite';

jest.setTimeout(180_000);

const MAX_URLS = 60;
let play: Playground;
let models: ModelServer;
let receiver: WebhookReceiver;
// Proxy pools (proxy-pools.suite.ts) share this app start: a live proxy with credentials and a dead one.
const PROXY_PASSWORD = 'proxy-pw-e2e-0123';
const proxied: string[] = [];
const proxy = new ProxyChainServer({
  port: 0,
  host: '127.0.0.1',
  prepareRequestFunction: ({ username, password, hostname, port }) => {
    proxied.push(`${username} ${hostname}:${port}`);
    return { requestAuthentication: username !== 'gleaner' || password !== PROXY_PASSWORD };
  },
});
let deadPort = 0;

const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_ROBOTS_RETRY_MS: '500',
  GLEANER_LLM_RETRIES: '0',
  GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
  GLEANER_BATCH_MAX_URLS: String(MAX_URLS),
  GLEANER_PROXY_POOLS: JSON.stringify({
    [PROXY_POOL]: [`http://gleaner:${PROXY_PASSWORD}@127.0.0.1:${deadPort}`, `http://gleaner:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`],
    [DEAD_POOL]: [`http://gleaner:${PROXY_PASSWORD}@127.0.0.1:${deadPort}`],
  }),
});
const proxyEnv = (app: RunningApp) => ({ app, play, models, proxied, livePort: proxy.port, deadPort, password: PROXY_PASSWORD });

beforeAll(async () => {
  play = await startPlayground();
  models = await startModelServer();
  receiver = await startWebhookReceiver();
  await proxy.listen();
  const dead = net.createServer();
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  deadPort = (dead.address() as AddressInfo).port;
  await new Promise((resolve) => dead.close(resolve));
});
afterAll(async () => {
  await proxy.close(true);
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
  describe('proxy pools', () => proxyPoolsSuite(() => proxyEnv(app)));
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
  describe('proxy pools', () => proxyPoolsSuite(() => proxyEnv(app)));
});
