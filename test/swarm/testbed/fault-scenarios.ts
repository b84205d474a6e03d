/**
 * Scenarios 4 and 5 of `npm run test:swarm`: rolling updates of the crawler and then the API under a
 * client loop, and kills of the store's and Redis's containers, each during a crawl.
 */
import { containersOf, mustDocker } from '../docker-cli';
import { NoAnswer, addresses, call, pause, type Answer } from './client';
import { checkCrawl, finished, job, service, sized, startCrawl, type Context } from './context';

type Numbers = Record<string, unknown>;

/** One request as a plain client and as a client that retries once on a refused/reset connection or a 503 with Retry-After. */
interface Tally {
  sent: number;
  failedRaw: number;
  failedRetried: number;
  kinds: Record<string, number>;
}

const emptyTally = (): Tally => ({ sent: 0, failedRaw: 0, failedRetried: 0, kinds: {} });

function failureOf(outcome: Answer | NoAnswer): string | null {
  if (outcome instanceof NoAnswer) return outcome.code;
  return outcome.status >= 200 && outcome.status < 300 ? null : `HTTP ${outcome.status}`;
}

function retryable(outcome: Answer | NoAnswer): number | null {
  if (outcome instanceof NoAnswer) return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH'].includes(outcome.code) ? 0 : null;
  if (outcome.status === 503 && outcome.headers['retry-after']) return Math.min(5, Number(outcome.headers['retry-after']) || 1) * 1000;
  return null;
}

/**
 * The client loop inside the overlay: authenticated job reads and small synchronous extracts, paced
 * (well under the per-key rate limit), each sent to the next address of `tasks.api`.
 */
function clientLoop(
  ctx: Context,
  jobId: string,
): { stop: () => Promise<void>; window: (name: string | null) => void; tallies: Record<string, Tally> } {
  const tallies: Record<string, Tally> = {};
  let current: string | null = null;
  let running = true;
  let next = 0;
  const send = async (i: number): Promise<Answer | NoAnswer> => {
    const all = await addresses('tasks.api');
    if (all.length === 0) return new NoAnswer('ENOTFOUND', 'tasks.api');
    const host = all[next++ % all.length];
    const request =
      i % 4 === 3
        ? call(host, 8080, 'POST', '/api/v1/extract', {
            key: ctx.api.key,
            timeoutMs: 150_000,
            body: {
              url: `http://${ctx.siteHost}:${ctx.sitePort}/product/${i}`,
              schema: { name: 'string', price: 'string' },
              fetch_mode: 'static',
              llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: ctx.llmKey, base_url: ctx.modelBaseUrl },
            },
          })
        : call(host, 8080, 'GET', `/api/v1/jobs/${jobId}`, { key: ctx.api.key, timeoutMs: 30_000 });
    return request.catch((error: unknown) => (error instanceof NoAnswer ? error : new NoAnswer(String(error), host)));
  };
  const worker = async (offset: number) => {
    for (let i = offset; running; i += 2) {
      const started = Date.now();
      const window = current;
      const first = await send(i);
      let final = first;
      const wait = failureOf(first) ? retryable(first) : null;
      if (wait !== null) {
        await pause(wait);
        final = await send(i);
      }
      if (window) {
        const t = (tallies[window] ??= emptyTally());
        t.sent++;
        const raw = failureOf(first);
        if (raw) {
          t.failedRaw++;
          t.kinds[raw] = (t.kinds[raw] ?? 0) + 1;
        }
        if (failureOf(final)) {
          t.failedRetried++;
          const kind = `after retry: ${failureOf(final)}`;
          t.kinds[kind] = (t.kinds[kind] ?? 0) + 1;
        }
      }
      await pause(Math.max(0, 400 - (Date.now() - started)));
    }
  };
  const workers = [worker(0), worker(1)];
  return {
    window: (name) => (current = name),
    stop: async () => {
      running = false;
      await Promise.all(workers);
    },
    tallies,
  };
}

/**
 * The end state of a service's update or rollback. `docker service update --detach=false` returns once the
 * tasks converged, while Swarm still watches the last new task for the `monitor` period (state `updating`
 * or `rollback_started`): this waits for that to end.
 */
async function updateState(name: string): Promise<string> {
  const read = async () =>
    (await mustDocker(['service', 'inspect', name, '--format', '{{if .UpdateStatus}}{{.UpdateStatus.State}}{{end}}'])).trim();
  const deadline = Date.now() + 300_000;
  let state = await read();
  while (['updating', 'rollback_started'].includes(state) && Date.now() < deadline) {
    await pause(2000);
    state = await read();
  }
  return state;
}

/** 4. docker service update --force of the crawler, then of the API, during a crawl and a client loop. */
export async function rollingUpdates(ctx: Context): Promise<{ problems: string[]; numbers: Numbers }> {
  const problems: string[] = [];
  // Long enough to last through both updates and the rollback (about ten minutes of update timers) at
  // the pace scenario 1 measured on this machine now.
  const crawl = await startCrawl(ctx, 'rolling', sized(ctx, 900, 800, 6000), 'slow-500', 16);
  const loop = clientLoop(ctx, crawl.id);
  const seconds: Record<string, number> = {};
  try {
    for (const name of ['crawler', 'api']) {
      loop.window(name);
      const started = Date.now();
      ctx.log(`docker service update --force ${service(ctx, name)}`);
      await mustDocker(['service', 'update', '--force', '--detach=false', service(ctx, name)]);
      seconds[name] = (Date.now() - started) / 1000;
      const state = await updateState(service(ctx, name));
      if (state !== 'completed') problems.push(`${name} update ended ${state} (not completed: rolled back or paused)`);
      loop.window(null);
    }
    // And back: the rollback of the API's update (the command an operator runs after a bad release).
    loop.window('api-rollback');
    const started = Date.now();
    ctx.log(`docker service rollback ${service(ctx, 'api')}`);
    await mustDocker(['service', 'rollback', '--detach=false', service(ctx, 'api')]);
    seconds['api-rollback'] = (Date.now() - started) / 1000;
    const state = await updateState(service(ctx, 'api'));
    if (state !== 'rollback_completed') problems.push(`api rollback ended ${state}`);
    loop.window(null);
    if ((await job(ctx, crawl.id)).status !== 'running') problems.push('the crawl ended before the API rollback did: make it larger');
  } finally {
    await loop.stop();
  }
  for (const [name, t] of Object.entries(loop.tallies)) {
    if (t.failedRetried > 0)
      problems.push(`${name} update: ${t.failedRetried} of ${t.sent} requests failed for a client that retries once`);
  }
  await finished(ctx, crawl);
  const check = await checkCrawl(ctx, crawl, 2);
  problems.push(...check.problems);
  return { problems, numbers: { job_id: crawl.id, update_seconds: seconds, requests: loop.tallies, refetched: check.refetched } };
}

interface Probe {
  at: number;
  jobs: Record<string, number>;
  ready: Record<string, number>;
  health: Record<string, number>;
}

/** Each API replica's answer to a job read, /ready and /health (0: no answer). */
async function probe(ctx: Context, jobId: string): Promise<Probe & { retryAfterMissing: number }> {
  const out: Probe & { retryAfterMissing: number } = { at: Date.now(), jobs: {}, ready: {}, health: {}, retryAfterMissing: 0 };
  await Promise.all(
    (await addresses('tasks.api')).map(async (host) => {
      const get = (path: string, key?: string) => call(host, 8080, 'GET', path, { key, timeoutMs: 20_000 }).catch(() => null);
      const [j, r, h] = await Promise.all([get(`/api/v1/jobs/${jobId}`, ctx.api.key), get('/ready'), get('/health')]);
      out.jobs[host] = j?.status ?? 0;
      out.ready[host] = r?.status ?? 0;
      out.health[host] = h?.status ?? 0;
      if (j?.status === 503 && !j.headers['retry-after']) out.retryAfterMissing++;
    }),
  );
  return out;
}

/** Kills the one container of `name` and watches every API replica until each answers again. */
async function outage(ctx: Context, name: string, jobId: string): Promise<{ problems: string[]; numbers: Numbers }> {
  const problems: string[] = [];
  const [container] = await containersOf(service(ctx, name));
  ctx.log(`docker kill ${container} (${name})`);
  const killedAt = Date.now();
  await mustDocker(['kill', container]);
  const seen = { jobs: {} as Record<string, number>, ready: {} as Record<string, number>, health: {} as Record<string, number> };
  let recoveredAt = 0;
  let saw503 = false;
  let retryAfterMissing = 0;
  while (!recoveredAt) {
    if (Date.now() - killedAt > 300_000) {
      problems.push(`no recovery within 300 s of the ${name} kill`);
      break;
    }
    const p = await probe(ctx, jobId);
    retryAfterMissing += p.retryAfterMissing;
    for (const kind of ['jobs', 'ready', 'health'] as const) {
      for (const status of Object.values(p[kind])) seen[kind][status] = (seen[kind][status] ?? 0) + 1;
    }
    if (Object.values(p.jobs).includes(503) || Object.values(p.ready).includes(503)) saw503 = true;
    const all = [...Object.values(p.jobs), ...Object.values(p.ready)];
    if (saw503 && all.length > 0 && all.every((s) => s === 200)) recoveredAt = p.at;
    await pause(500);
  }
  if (seen.jobs[500] || seen.ready[500]) problems.push(`${name} outage: answers 500 (${JSON.stringify(seen)})`);
  if (retryAfterMissing > 0) problems.push(`${name} outage: ${retryAfterMissing} 503 answers without Retry-After`);
  if (Object.keys(seen.health).some((s) => s !== '200')) problems.push(`${name} outage: /health answered ${JSON.stringify(seen.health)}`);
  if (!Object.values(seen.ready).length || !seen.ready[503])
    problems.push(`${name} outage: /ready never said not ready (${JSON.stringify(seen.ready)})`);
  // Every crawler replica is ready again too (its own /ready on 8081).
  for (const host of await addresses('tasks.crawler')) {
    let status = 0;
    for (let i = 0; i < 120 && status !== 200; i++) {
      status = (await call(host, 8081, 'GET', '/ready', { timeoutMs: 10_000 }).catch(() => null))?.status ?? 0;
      if (status !== 200) await pause(1000);
    }
    if (status !== 200) problems.push(`crawler ${host} not ready after the ${name} outage (${status})`);
  }
  return { problems, numbers: { recovery_s: recoveredAt ? (recoveredAt - killedAt) / 1000 : null, answers: seen } };
}

/** 5. The store's and then Redis's container killed during a crawl. */
export async function storeAndRedis(ctx: Context): Promise<{ problems: string[]; numbers: Numbers }> {
  const problems: string[] = [];
  const crawl = await startCrawl(ctx, 'outage', sized(ctx, 360, 400, 3000), 'slow-500', 16);
  const numbers: Numbers = { job_id: crawl.id };
  for (const name of ['mongo', 'redis']) {
    const before = (await job(ctx, crawl.id)).page_count as number;
    const result = await outage(ctx, name, crawl.id);
    problems.push(...result.problems);
    numbers[name] = result.numbers;
    // The crawl resumes by itself.
    const resumedFrom = (await job(ctx, crawl.id)).page_count as number;
    let resumed = false;
    for (let i = 0; i < 180 && !resumed; i++) {
      const j = await job(ctx, crawl.id);
      resumed = j.page_count > resumedFrom || j.status === 'completed';
      if (!resumed) await pause(1000);
    }
    if (!resumed) problems.push(`the crawl did not resume after the ${name} outage (pages ${before} → ${resumedFrom})`);
  }
  // The outage numbers are kept whatever the crawl's end says.
  try {
    await finished(ctx, crawl);
    const check = await checkCrawl(ctx, crawl, 3);
    problems.push(...check.problems);
    numbers.refetched = check.refetched;
  } catch (error) {
    problems.push(`the crawl after the outages: ${(error as Error).message}`);
  }
  return { problems, numbers };
}
