import { spawnSync } from 'node:child_process';
import { startModelServer } from '../fixtures/model-server';
import { startPlayground } from '../fixtures/playground/playground';
import { startWebhookReceiver } from '../fixtures/webhook-receiver';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startEmbedded } from './embedded-app';
import { tempDir } from './helpers';
import { dumpMongo, dumpSqlite, type StoreDump } from './store-dump';
import { tenantDeletionSuite, type TenantDeletionEnv } from './tenant-deletion.suite';

jest.setTimeout(120_000);

/** What both deployments share: the fixture sites, the model, the webhook receiver, the browser for a screenshot. */
async function environment(appEnv: Record<string, string>, dump: () => Promise<StoreDump>) {
  const play = await startPlayground();
  const models = await startModelServer();
  const receiver = await startWebhookReceiver();
  const settings = {
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: play.resolve,
    GLEANER_BROWSER_ENABLED: 'true',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_LLM_RETRIES: '0',
    GLEANER_EXTRACT_WAIT_MS: '60000',
    GLEANER_BOOTSTRAP_KEY: 'glk_' + 'T'.repeat(20) + 'd'.repeat(20),
    ...appEnv,
  };
  const env: TenantDeletionEnv & { close(): Promise<void> } = {
    app: await startEmbedded(settings),
    play,
    models,
    receiver,
    dump,
    restart: async () => {
      await env.app.close();
      env.app = await startEmbedded(settings);
      return env.app;
    },
    close: async () => {
      await env.app?.close();
      await play.close();
      await models.close();
      await receiver.close();
    },
  };
  return env;
}

describe('tenant deletion, embedded deployment', () => {
  let env: TenantDeletionEnv & { close(): Promise<void> };
  beforeAll(async () => {
    const dataDir = tempDir('gleaner-tenant-deletion-');
    env = await environment({ DATA_DIR: dataDir }, () => dumpSqlite(dataDir));
  });
  afterAll(async () => env?.close());
  tenantDeletionSuite(() => env);
});

describeWith(['mongodb', 'redis'], 'tenant deletion, cluster deployment (MongoDB + Redis)', () => {
  let env: TenantDeletionEnv & { close(): Promise<void> };
  beforeAll(async () => {
    const uri = `${serverUrl('mongodb')}/${uniqueDbName('gleaner_tenant_deletion')}`;
    const redis = `${serverUrl('redis')}/1`;
    spawnSync('redis-cli', ['-u', redis, 'flushdb']);
    env = await environment({ MONGODB_URI: uri, REDIS_URL: redis, GLEANER_SECRET: 'tenant-deletion-secret-0123456789abcdef' }, () =>
      dumpMongo(uri),
    );
  });
  afterAll(async () => env?.close());
  tenantDeletionSuite(() => env);
});
