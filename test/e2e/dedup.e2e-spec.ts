import { spawnSync } from 'node:child_process';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { dedupSuite } from './dedup.suite';
import { startEmbedded, type RunningApp } from './embedded-app';

jest.setTimeout(240_000);

let play: Playground;
let models: ModelServer;

const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_LLM_RETRIES: '0',
});

beforeAll(async () => {
  [play, models] = await Promise.all([startPlayground(), startModelServer()]);
});
afterAll(async () => {
  await Promise.all([play?.close(), models?.close()]);
});

describe('duplicates, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  dedupSuite(() => ({ app, play, models }));
});

describeWith(['mongodb', 'redis'], 'duplicates, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    spawnSync('redis-cli', ['-u', `${serverUrl('redis')}/10`, 'flushdb']);
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_dedup')}`,
      REDIS_URL: `${serverUrl('redis')}/10`,
      GLEANER_SECRET: 'dedup-test-secret-0123456789abcdefgh',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'D'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  dedupSuite(() => ({ app, play, models }));
});
