import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { archiveSuite } from './archive.suite';
import { startEmbedded, type RunningApp } from './embedded-app';

jest.setTimeout(240_000);

const WARC_MAX_BYTES = 2 * 1024 * 1024;
let play: Playground;
let models: ModelServer;

const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_LLM_RETRIES: '0',
  GLEANER_WARC_MAX_BYTES: String(WARC_MAX_BYTES),
});

beforeAll(async () => {
  play = await startPlayground();
  models = await startModelServer();
});
afterAll(async () => {
  await play?.close();
  await models?.close();
});

describe('page archive, embedded deployment (SQLite + files)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  archiveSuite(() => ({ app, play, models, warcMaxBytes: WARC_MAX_BYTES }));
});

describeWith(['mongodb', 'redis'], 'page archive, cluster deployment (MongoDB + GridFS)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_archive')}`,
      REDIS_URL: `${serverUrl('redis')}/9`,
      GLEANER_SECRET: 'archive-test-secret-0123456789abcdef',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'R'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  archiveSuite(() => ({ app, play, models, warcMaxBytes: WARC_MAX_BYTES }));
});
