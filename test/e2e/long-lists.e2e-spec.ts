import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startEmbedded, type RunningApp } from './embedded-app';
import { pagedListsSuite } from './long-lists-paged.suite';
import { longListsSuite } from './long-lists.suite';

jest.setTimeout(180_000);

let play: Playground;
let models: ModelServer;

const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_LLM_RETRIES: '0',
  // Every extraction of the suite must finish within the wait on a busy machine.
  GLEANER_EXTRACT_WAIT_MS: '60000',
});

beforeAll(async () => {
  [play, models] = await Promise.all([startPlayground(), startModelServer()]);
});
afterAll(async () => {
  await Promise.all([play?.close(), models?.close()]);
});

describe('long lists, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  longListsSuite(() => ({ app, play, models }));
  pagedListsSuite(() => ({ app, play, models }));
});

describeWith(['mongodb', 'redis'], 'long lists, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_lists')}`,
      REDIS_URL: `${serverUrl('redis')}/9`,
      GLEANER_SECRET: 'long-lists-test-secret-0123456789abcd',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'L'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  longListsSuite(() => ({ app, play, models }));
  pagedListsSuite(() => ({ app, play, models }));
});
