/**
 * The Firecrawl SDK and MCP suite (firecrawl.suite.ts) against the cluster deployment: the built API
 * (`--role=api`) and two crawler processes on their own Redis and MongoDB-wire server, the SDK pointed at
 * the API. A developer command, not CI (CI runs the same suite on the embedded deployment,
 * firecrawl.e2e-spec.ts): `npm run test:firecrawl-cluster` builds, runs this, and writes its result to
 * bench-results/firecrawl-cluster.json (docs/firecrawl.md "Tests").
 */
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startMongoWire, startRedis, type StartedServer } from '../harness/servers';
import { firecrawlEnv } from './firecrawl-env';
import { firecrawlSuite } from './firecrawl.suite';
import { API_MAIN, CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(240_000);

const KEY = 'glk_' + 'F'.repeat(20) + 'c'.repeat(20);

describe('Firecrawl SDK and MCP server against /v2, cluster deployment (API + 2 crawlers, Redis, MongoDB-wire)', () => {
  let play: Playground;
  let models: ModelServer;
  const servers: StartedServer[] = [];
  const processes: AppProcess[] = [];
  let api: AppProcess;

  beforeAll(async () => {
    assertBuilt();
    play = await startPlayground();
    models = await startModelServer();
    const redis = await startRedis();
    const mongo = await startMongoWire();
    servers.push(redis, mongo);
    const env = {
      ...firecrawlEnv(play),
      MONGODB_URI: `${mongo.url}/gleaner_firecrawl_cluster`,
      REDIS_URL: `${redis.url}/0`,
      GLEANER_SECRET: 'firecrawl-cluster-secret-0123456789ab',
      GLEANER_BOOTSTRAP_KEY: KEY,
      LOG_LEVEL: 'info',
    };
    api = await startProcess('api', API_MAIN, ['--role=api'], env, 'PORT');
    processes.push(api);
    processes.push(await startProcess('crawler-1', CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
    processes.push(await startProcess('crawler-2', CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await Promise.all(servers.map((s) => s.stop()));
    await play?.close();
    await models?.close();
  });

  firecrawlSuite(() => ({
    app: { baseUrl: api.url, adminKey: KEY },
    logs: () => processes.map((p) => p.output()).join('\n'),
    play,
    models,
  }));
});
