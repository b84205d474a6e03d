import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { startEmbedded, type RunningApp } from './embedded-app';
import { extractionSuite } from './extraction.suite';
import { extractPromptSuite } from './extract-prompt.suite';

jest.setTimeout(60_000);

const EXTRACT_WAIT_MS = 8000;

const ENV = {
  GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
  GLEANER_FEE_PERCENT: '10',
  GLEANER_LLM_RETRIES: '1',
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '100000',
  // Every extraction of the suite must finish within this wait (a busy machine needs room); the one
  // test that outlasts it uses a model slower than the wait.
  GLEANER_EXTRACT_WAIT_MS: String(EXTRACT_WAIT_MS),
};

let site: FixtureSite;
let models: ModelServer;
beforeAll(async () => {
  site = await startFixtureSite();
  models = await startModelServer();
});
afterAll(async () => {
  await site?.close();
  await models?.close();
});

describe('extraction, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(ENV);
  });
  afterAll(async () => app?.close());
  extractionSuite(() => ({ app, site, models }), { embedded: true, extractWaitMs: EXTRACT_WAIT_MS });
  extractPromptSuite(() => ({ app, site, models }));
});

describeWith(['mongodb', 'redis'], 'extraction, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...ENV,
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_extraction')}`,
      REDIS_URL: `${serverUrl('redis')}/8`,
      GLEANER_SECRET: 'extraction-test-secret-0123456789abcd',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'E'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  extractionSuite(() => ({ app, site, models }), { embedded: false, extractWaitMs: EXTRACT_WAIT_MS });
  extractPromptSuite(() => ({ app, site, models }));
});
