import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startEmbedded, type RunningApp } from './embedded-app';
import { extractLearnedSuite } from './extract-learned.suite';

jest.setTimeout(180_000);

let play: Playground;
let models: ModelServer;

/** The playground's loopback names, as crawl.e2e-spec.ts opens them. */
function env(playground: Playground): Record<string, string> {
  return {
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: playground.resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    GLEANER_LLM_RETRIES: '0',
  };
}

beforeAll(async () => {
  play = await startPlayground();
  models = await startModelServer();
});
afterAll(async () => {
  await play?.close();
  await models?.close();
});

describe('extract with learned programs, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env(play));
  });
  afterAll(async () => app?.close());
  extractLearnedSuite(() => ({ app, play, models }));
});

describeWith(['mongodb', 'redis'], 'extract with learned programs, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(play),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_extract_learned')}`,
      REDIS_URL: `${serverUrl('redis')}/14`,
      GLEANER_SECRET: 'extract-learned-secret-0123456789abcd',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'L'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  extractLearnedSuite(() => ({ app, play, models }));
});
