import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startGates, type Gates } from '../fixtures/gate';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startEmbedded, type RunningApp } from './embedded-app';
import { mcpSuite } from './mcp.suite';
import { assertBuilt } from './processes';

jest.setTimeout(180_000);

let play: Playground;
let models: ModelServer;
let gates: Gates;

const env = () => ({
  GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
  GLEANER_RESOLVE: play.resolve,
  GLEANER_BROWSER_ENABLED: 'false',
  GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
  GLEANER_ROBOTS_RETRY_MS: '500',
  GLEANER_LLM_RETRIES: '0',
});

beforeAll(async () => {
  assertBuilt();
  play = await startPlayground();
  models = await startModelServer();
  gates = await startGates();
});
afterAll(async () => {
  await play?.close();
  await models?.close();
  await gates?.close();
});

describe('MCP, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(env());
  });
  afterAll(async () => app?.close());
  describe('streamable HTTP at /mcp', () => mcpSuite('http', () => ({ app, play, models, gates })));
  describe('stdio: gleaner mcp', () => mcpSuite('stdio', () => ({ app, play, models, gates })));
});

// The cluster's store, Redis rate limiter and revocation broadcast behind the same HTTP transport.
describeWith(['mongodb', 'redis'], 'MCP, cluster deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded({
      ...env(),
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_mcp')}`,
      REDIS_URL: `${serverUrl('redis')}/15`,
      GLEANER_SECRET: 'mcp-test-secret-0123456789abcdefghij',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'M'.repeat(40),
    });
  });
  afterAll(async () => app?.close());
  describe('streamable HTTP at /mcp', () => mcpSuite('http', () => ({ app, play, models, gates })));
});
