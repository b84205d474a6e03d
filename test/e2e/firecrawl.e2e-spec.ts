import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startEmbedded, type RunningApp } from './embedded-app';
import { firecrawlEnv } from './firecrawl-env';
import { firecrawlSuite } from './firecrawl.suite';

jest.setTimeout(180_000);

let play: Playground;
let models: ModelServer;

beforeAll(async () => {
  play = await startPlayground();
  models = await startModelServer();
});
afterAll(async () => {
  await play?.close();
  await models?.close();
});

// CI runs the embedded deployment; the cluster one is `npm run test:firecrawl-cluster` (firecrawl-cluster.dev-spec.ts),
// its last result committed in bench-results/firecrawl-cluster.json (docs/firecrawl.md "Tests").
describe('Firecrawl SDK and MCP server against /v2, embedded deployment', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startEmbedded(firecrawlEnv(play));
  });
  afterAll(async () => app?.close());
  firecrawlSuite(() => ({ app, logs: () => app.logs.text, play, models }));
});
