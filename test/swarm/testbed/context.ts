/**
 * What every scenario of the swarm driver shares: the API client, the stack's names, the test site and
 * model addresses, and the crawl helpers with every correctness check of a finished crawl.
 */
import { containersOf, docker } from '../docker-cli';
import { Api, addresses, call, readStream, untilDone } from './client';

export interface Verdict {
  scenario: string;
  verdict: 'pass' | 'fail';
  problems: string[];
  numbers: Record<string, unknown>;
  seconds: number;
  /** The machine's 1/5/15-minute load averages when the scenario started and ended. */
  load?: { start: number[]; end: number[] };
}

export interface Context {
  api: Api;
  stack: string;
  siteHost: string;
  sitePort: number;
  modelBaseUrl: string;
  /** The key a crawl's llm_config carries (BYOK): scenario 6 checks it shows nowhere either. */
  llmKey: string;
  log: (message: string) => void;
  /** Numbers shared between scenarios (scenario 7 reads scenario 1's crawl window). */
  shared: Record<string, any>;
}

export const SCHEMA = { name: 'string', price: 'string', sku: 'string' };

export function service(ctx: Context, name: string): string {
  return `${ctx.stack}_${name}`;
}

export interface Crawl {
  id: string;
  tag: string;
  size: number;
  startedAt: number;
}

export async function startCrawl(ctx: Context, tag: string, size: number, model = 'gpt-4o-mini', concurrency = 8): Promise<Crawl> {
  const startedAt = Date.now();
  const body = await ctx.api.json('POST', '/api/v1/crawl', {
    body: {
      url: `http://${ctx.siteHost}:${ctx.sitePort}/c/${tag}/n/0?size=${size}`,
      schema: SCHEMA,
      llm_config: { provider: 'openai', model, api_key: ctx.llmKey, base_url: ctx.modelBaseUrl },
      options: { max_pages: size, max_depth: 10, concurrency },
    },
  });
  ctx.log(`crawl ${tag}: job ${body.job_id}, ${size} pages, model ${model}`);
  return { id: body.job_id, tag, size, startedAt };
}

export async function job(ctx: Context, id: string): Promise<any> {
  return ctx.api.json('GET', `/api/v1/jobs/${id}`);
}

/**
 * A crawl size that lasts about `seconds` at the pace scenario 1 measured (the machine is shared: its pace
 * varies 2-5×), within [min, max]; 2 pages/s when scenario 1 did not run.
 */
export function sized(ctx: Context, seconds: number, min: number, max: number): number {
  const crawl = ctx.shared.crawl1 as { startedAt: number; endedAt: number; pages: number } | undefined;
  const pace = crawl ? crawl.pages / ((crawl.endedAt - crawl.startedAt) / 1000) : 2;
  return Math.max(min, Math.min(max, Math.round(pace * seconds)));
}

/** Waits for the crawl to end, as long as its page count moves. */
export async function finished(ctx: Context, crawl: Crawl, idleMs = 240_000): Promise<{ job: any; endedAt: number }> {
  const done = await untilDone(
    `crawl ${crawl.tag}`,
    async () => {
      const j = await job(ctx, crawl.id);
      return ['completed', 'failed', 'cancelled'].includes(j.status) ? j : null;
    },
    async () => (await job(ctx, crawl.id)).page_count,
    idleMs,
  );
  return { job: done, endedAt: Date.now() };
}

/** How many times each page of a crawl was fetched from the test site. */
export async function siteFetches(ctx: Context, tag: string): Promise<Record<string, number>> {
  const [host] = await addresses(ctx.siteHost);
  const answer = await call(host, ctx.sitePort, 'GET', `/_stats?tag=${tag}`);
  return answer.body as Record<string, number>;
}

/**
 * Every correctness check of a finished crawl: completed with `size` pages and no failure, each URL once
 * in the results, one result per completed page, the crawl map's totals, exactly one `complete` and one
 * `result` event per page in the stream's replay, and no page fetched more than `maxFetches` times.
 */
export async function checkCrawl(ctx: Context, crawl: Crawl, maxFetches: number): Promise<{ problems: string[]; refetched: number }> {
  const problems: string[] = [];
  const expect = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  const j = await job(ctx, crawl.id);
  expect(j.status === 'completed', `job status ${j.status}`);
  expect(j.page_count === crawl.size, `page_count ${j.page_count}, expected ${crawl.size}`);
  expect(j.failed_count === 0, `failed_count ${j.failed_count}`);
  const results = (await ctx.api.json('GET', `/api/v1/jobs/${crawl.id}/results`)) as Array<{ url: string; status: string }>;
  const urls = new Set(results.map((r) => r.url));
  expect(results.length === crawl.size, `${results.length} results, expected ${crawl.size}`);
  expect(urls.size === results.length, `${results.length - urls.size} URLs twice in the results`);
  const map = await ctx.api.json('GET', `/api/v1/jobs/${crawl.id}/crawl-map?limit=1`);
  expect(map.completed === crawl.size, `crawl map completed ${map.completed}`);
  expect(map.pending + map.running === 0, `crawl map pending ${map.pending} running ${map.running}`);
  const failed = (await ctx.api.json('GET', `/api/v1/jobs/${crawl.id}/crawl-map?status=failed&limit=100`)).entries as any[];
  expect(failed.length === 0, `failed entries: ${JSON.stringify(failed.map((e) => [e.url, e.error_category]))}`);
  const events = await readStream(ctx.api, crawl.id);
  expect(
    events.filter((e) => e.event === 'complete').length === 1,
    `${events.filter((e) => e.event === 'complete').length} complete events`,
  );
  const announced = events.filter((e) => e.event === 'result').map((e) => e.data.url as string);
  expect(announced.length === crawl.size, `${announced.length} result events, expected ${crawl.size}`);
  expect(new Set(announced).size === announced.length, `${announced.length - new Set(announced).size} result events twice`);
  const fetches = await siteFetches(ctx, crawl.tag);
  const counts = Object.values(fetches);
  expect(counts.length === crawl.size, `${counts.length} distinct pages fetched, expected ${crawl.size}`);
  const most = Math.max(0, ...counts);
  expect(most <= maxFetches, `a page fetched ${most} times (at most ${maxFetches} allowed)`);
  return { problems, refetched: counts.filter((c) => c > 1).length };
}

/** The crawler task that owns a crawl now: the container whose log says "crawl owned" with the highest epoch. */
export async function ownerOf(ctx: Context, jobId: string): Promise<{ container: string; epoch: number } | null> {
  let best: { container: string; epoch: number } | null = null;
  for (const container of await containersOf(service(ctx, 'crawler'))) {
    const logs = await docker(['logs', container]);
    for (const line of `${logs.stdout}\n${logs.stderr}`.split('\n')) {
      if (!line.includes('"crawl owned"') || !line.includes(jobId)) continue;
      const epoch = Number(/"epoch":(\d+)/.exec(line)?.[1] ?? 0);
      if (!best || epoch > best.epoch) best = { container, epoch };
    }
  }
  return best;
}

/** The page tasks each crawler replica completed (its own counter, from its /metrics on port 8081). */
export async function crawlerPageTasks(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const address of await addresses(`tasks.crawler`)) {
    const answer = await call(address, 8081, 'GET', '/metrics').catch(() => null);
    const m = answer ? /^gleaner_crawl_page_tasks_total\{[^}]*outcome="completed"[^}]*\} (\d+)/m.exec(answer.text) : null;
    out[address] = Number(m?.[1] ?? NaN);
  }
  return out;
}
