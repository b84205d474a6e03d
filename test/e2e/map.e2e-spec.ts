import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startEmbedded, type RunningApp } from './embedded-app';
import { mapSuite } from './map.suite';

jest.setTimeout(120_000);

let play: Playground;
const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  // intranet.example: a name that resolves to a refused address (its refusal must not tell which).
  GLEANER_RESOLVE: `${play.resolve},intranet.example=10.9.8.7`,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_MAP_TIME_BUDGET_MS: '2000',
});

beforeAll(async () => {
  play = await startPlayground();
});
afterAll(async () => play?.close());

describe('map, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  mapSuite(() => ({ app, play }));
});

describeWith(['mongodb', 'redis'], 'map, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_map')}`,
      REDIS_URL: `${serverUrl('redis')}/12`,
      GLEANER_SECRET: 'map-test-secret-0123456789abcdefghij',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'M'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  mapSuite(() => ({ app, play }));
});
