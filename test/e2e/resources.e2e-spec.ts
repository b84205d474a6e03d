import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startEmbedded, type RunningApp } from './embedded-app';
import { resourcesSuite } from './resources.suite';

jest.setTimeout(60_000);

describe('saved resources, embedded deployment', () => {
  let env: RunningApp;
  beforeAll(async () => {
    env = await startEmbedded({ GLEANER_RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(async () => env?.close());
  resourcesSuite(() => env);
});

describeWith(['mongodb', 'redis'], 'saved resources, cluster deployment (MongoDB + Redis)', () => {
  let env: RunningApp;
  beforeAll(async () => {
    env = await startEmbedded({
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_resources')}`,
      REDIS_URL: `${serverUrl('redis')}/4`,
      GLEANER_SECRET: 'resources-test-secret-0123456789abcdef',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'R'.repeat(40),
      GLEANER_RATE_LIMIT_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => env?.close());
  resourcesSuite(() => env);
});
