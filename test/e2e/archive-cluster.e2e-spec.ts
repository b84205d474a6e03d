/**
 * Re-extraction across crawler replicas (docs/archive.md "Re-extraction"), for real: the built apps as
 * separate processes, 1 API and 2 crawlers with 2 page workers each, on one Redis and one MongoDB-wire
 * server. A re-extraction's pages are spread over the page worker pool of both crawlers, like a crawl's,
 * and not one request reaches the site. Both replicas are proven busy by synchronisation, not by time:
 * the model holds every answer until 4 pages wait on it at once, which 2 workers per crawler allow only
 * when each crawler runs 2; each crawler's own metrics then count its pages.
 */
import { spawnSync } from 'node:child_process';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { http, waitFor } from './helpers';
import { API_MAIN, CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(240_000);

const BOOTSTRAP = 'glk_' + 'A'.repeat(20) + 'r'.repeat(20);
const PAGE_WORKERS = 2;
const PAGES = 24;

describeWith(['redis', 'mongodb'], 'page archive on the cluster deployment (1 API + 2 crawler processes)', () => {
  const processes: AppProcess[] = [];
  let api: AppProcess;
  let crawlers: AppProcess[];
  let play: Playground;
  let models: ModelServer;
  /** While set, every model answer waits for it; `waiting` counts the requests held. */
  let gate: { waiting: number; open: () => void; opened: Promise<void> } | null = null;

  beforeAll(async () => {
    assertBuilt();
    play = await startPlayground();
    models = await startModelServer({
      hold: async () => {
        const held = gate;
        if (!held) return;
        held.waiting++;
        await held.opened;
      },
    });
    const redisDb = 13;
    spawnSync('redis-cli', ['-u', `${serverUrl('redis')}/${redisDb}`, 'flushdb']);
    const env = {
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_archive_cluster')}`,
      REDIS_URL: `${serverUrl('redis')}/${redisDb}`,
      GLEANER_SECRET: 'archive-cluster-secret-0123456789abcd',
      GLEANER_BOOTSTRAP_KEY: BOOTSTRAP,
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_RESOLVE: play.resolve,
      GLEANER_BROWSER_ENABLED: 'false',
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
      GLEANER_LLM_RETRIES: '0',
      GLEANER_PAGE_WORKERS: String(PAGE_WORKERS),
    };
    api = await startProcess('api', API_MAIN, ['--role=api'], env, 'PORT');
    processes.push(api);
    crawlers = [
      await startProcess('crawler-1', CRAWLER_MAIN, [], env, 'CRAWLER_PORT'),
      await startProcess('crawler-2', CRAWLER_MAIN, [], env, 'CRAWLER_PORT'),
    ];
    processes.push(...crawlers);
  });

  afterAll(async () => {
    gate?.open();
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await play?.close();
    await models?.close();
  });

  const call = (method: string, path: string, body?: unknown) => http(api.url, method, path, { key: BOOTSTRAP, body });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-archive-cluster', base_url: models.openaiBaseUrl });
  const finished = (jobId: string): Promise<any> =>
    waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(job.status) ? job : null;
    }, 180_000);
  /** Page tasks this crawler process completed, from its own /metrics. */
  const completedTasks = async (crawler: AppProcess): Promise<number> => {
    const text = (await http(crawler.url, 'GET', '/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith('gleaner_crawl_page_tasks_total{') && l.includes('outcome="completed"'));
    return Number(line?.split(' ').at(-1) ?? NaN);
  };

  it("spreads a re-extraction's pages over both crawlers' page workers, with not one request to the site", async () => {
    const crawled = await call('POST', '/api/v1/crawl', {
      url: play.url('shop.test', '/catalog/page/1'),
      schema: { name: 'string', price: 'string', sku: 'string' },
      llm_config: llm(),
      options: { follow_selector: 'li.next a, a.product', max_depth: 10, max_pages: PAGES, concurrency: 6 },
    });
    expect(crawled.status).toBe(202);
    const crawl = await finished(crawled.body.job_id);
    expect(crawl).toMatchObject({ status: 'completed', page_count: PAGES, options: { archive: true } });

    const before = await Promise.all(crawlers.map(completedTasks));
    const siteRequests = play.requestsTo('shop.test').length;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    gate = { waiting: 0, open, opened };
    const started = await call('POST', `/api/v1/jobs/${crawl.id}/reextract`, {
      schema: { title: 'string', sku: 'string' },
      llm_config: llm(),
      concurrency: 8,
    });
    expect(started.status).toBe(202);
    expect(started.body.page_count).toBe(PAGES);
    // Each crawler runs at most PAGE_WORKERS pages: this many waiting at once means both run pages of it.
    await waitFor(async () => gate!.waiting >= PAGE_WORKERS * crawlers.length, 120_000);
    expect(gate.waiting).toBe(PAGE_WORKERS * crawlers.length);
    gate.open();
    gate = null;

    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ type: 'reextract', status: 'completed', page_count: PAGES, failed_count: 0 });
    expect(play.requestsTo('shop.test')).toHaveLength(siteRequests);
    const after = await Promise.all(crawlers.map(completedTasks));
    const perReplica = after.map((n, i) => n - before[i]);
    expect(perReplica.every((n) => n >= PAGE_WORKERS)).toBe(true);
    expect(perReplica.reduce((a, b) => a + b, 0)).toBe(PAGES);
    const items = (await call('GET', `/api/v1/jobs/${job.id}/results`)).body as any[];
    expect(items).toHaveLength(PAGES);
    expect(items.every((i) => i.status === 'completed' && Object.keys(i.data).sort().join() === 'sku,title')).toBe(true);
    for (const p of processes) expect(p.output()).not.toContain('sk-archive-cluster');
  });
});
