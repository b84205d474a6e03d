/**
 * Scenarios 6-8 of `npm run test:swarm`: secrets read from /run/secrets (and rotated), Prometheus in the
 * stack (every replica discovered, the alert rules, the pages counter against a crawl, every Grafana
 * panel's query), and a volume-level backup and restore of the store and of Redis.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { containersOf, docker, mustDocker, replicas } from '../docker-cli';
import { formatVariable, interpolate, loadDashboards, parseLabelValues, timeMacros } from '../../e2e/grafana-dashboards';
import { LOGIN_PASSWORD, LOGIN_USER } from '../../fixtures/login-site/login-site';
import { addresses, call, pause, untilDone } from './client';
import { checkCrawl, finished, job, service, startCrawl, type Context } from './context';

type Numbers = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------
// Prometheus
// ---------------------------------------------------------------------------------------------------

async function prom(path: string): Promise<any> {
  const [host] = await addresses('tasks.prometheus');
  if (!host) throw new Error('prometheus: no task');
  const answer = await call(host, 9090, 'GET', path, { timeoutMs: 60_000 });
  if (answer.status !== 200) throw new Error(`prometheus ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.body.data;
}

const query = (expr: string, at = Date.now() / 1000) => prom(`/api/v1/query?query=${encodeURIComponent(expr)}&time=${at}`);

/** Scrape targets up, by job. */
export async function targetsUp(): Promise<Record<string, number>> {
  const data = await prom('/api/v1/targets?state=active');
  const up: Record<string, number> = {};
  for (const t of data.activeTargets as Array<{ labels: { job: string }; health: string }>) {
    if (t.health === 'up') up[t.labels.job] = (up[t.labels.job] ?? 0) + 1;
  }
  return up;
}

/** Waits until Prometheus scrapes as many API and crawler targets as the services have replicas. */
export async function targetsMatchReplicas(
  ctx: Context,
): Promise<{ up: Record<string, number>; replicas: Record<string, number>; ok: boolean }> {
  const want = async () => ({
    'gleaner-api': (await replicas(service(ctx, 'api'))).desired,
    'gleaner-crawler': (await replicas(service(ctx, 'crawler'))).desired,
  });
  // DNS discovery refreshes every 15 s and scrapes every 15 s: a few rounds of each.
  const deadline = Date.now() + 180_000;
  let up: Record<string, number> = {};
  let expected: Record<string, number> = {};
  while (Date.now() < deadline) {
    [up, expected] = await Promise.all([targetsUp().catch(() => ({})), want()]);
    if (Object.entries(expected).every(([jobName, n]) => up[jobName] === n)) return { up, replicas: expected, ok: true };
    await pause(3000);
  }
  return { up, replicas: expected, ok: false };
}

/** The increase of a counter over a window from its raw samples, resets included (what increase() estimates). */
async function exactIncrease(selector: string, fromS: number, toS: number): Promise<number> {
  const range = `${Math.ceil(toS - fromS)}s`;
  const series = (await query(`${selector}[${range}]`, toS)).result as Array<{ values: Array<[number, string]> }>;
  let total = 0;
  for (const s of series) {
    const values = s.values.map(([, v]) => Number(v));
    for (let i = 1; i < values.length; i++) total += values[i] >= values[i - 1] ? values[i] - values[i - 1] : values[i];
  }
  return total;
}

const PAGES_COMPLETED = 'gleaner_crawl_pages_total{status="completed"}';

/**
 * 7a, right before scenario 1: every crawler replica's pages counter as Prometheus has it before the crawl
 * starts. The app exports the series at 0 from its start (libs/crawl/src/owner/crawl-job.handler.ts), but
 * Prometheus only has that 0 once it has found the task by DNS (15 s refresh) and scraped it (15 s): a
 * crawl started right after the deploy ran before the first scrape, and what a replica counted before it
 * was in no increase (616 of 1,000 pages in an earlier run). So the crawl waits for a sample of every
 * crawler's series; the window of 7b starts at the oldest of them.
 */
export async function pagesCounterBaseline(ctx: Context): Promise<Numbers> {
  const started = Date.now();
  const deadline = started + 180_000;
  const selector = PAGES_COMPLETED.replace('}', ',job="gleaner-crawler"}');
  type Sample = { metric: { instance: string }; value: [number, string] };
  let seen: Sample[] = [];
  let desired = 0;
  while (Date.now() < deadline) {
    desired = (await replicas(service(ctx, 'crawler'))).desired;
    seen = (await query(selector).catch(() => ({ result: [] }))).result;
    if (seen.length === desired) break;
    await pause(3000);
  }
  const values = Object.fromEntries(seen.map((s) => [s.metric.instance, Number(s.value[1])]));
  // An instant query's value carries the evaluation time; timestamp() gives each sample's own.
  const stamps = (await query(`timestamp(${selector})`).catch(() => ({ result: [] }))).result as Sample[];
  const sampledAt = stamps.map((s) => Number(s.value[1]));
  const baseline = {
    crawler_replicas: desired,
    series_before_crawl: values,
    waited_s: (Date.now() - started) / 1000,
    from_s: sampledAt.length > 0 ? Math.min(...sampledAt) : null,
  };
  ctx.log(`pages counter before scenario 1: ${JSON.stringify(baseline)}`);
  return baseline;
}

/** 7b, right after scenario 1: the pages counter summed over replicas against the crawl's page count. */
export async function pagesCounterAgainstCrawl(ctx: Context): Promise<Numbers> {
  const crawl = ctx.shared.crawl1 as { startedAt: number; endedAt: number; pages: number } | undefined;
  const baseline = ctx.shared.pagesBaseline as { from_s: number | null; crawler_replicas: number; series_before_crawl: object } | undefined;
  if (!crawl) return { error: 'scenario 1 did not run' };
  if (!baseline || baseline.from_s === null || Object.keys(baseline.series_before_crawl).length !== baseline.crawler_replicas) {
    return { error: 'not every crawler replica had a sample of the pages counter before the crawl', baseline: baseline ?? null };
  }
  // From the last sample before the crawl (1 s earlier: whether a range includes its left end changed in
  // Prometheus 3) until every replica's last count is scraped: at most a couple of scrape intervals after
  // the end, longer when scrapes time out on a loaded machine.
  const fromS = baseline.from_s - 1;
  const deadline = crawl.endedAt + 120_000;
  let exact = 0;
  let toS = 0;
  do {
    await pause(Math.min(15_000, Math.max(0, deadline - Date.now())));
    toS = Date.now() / 1000;
    exact = await exactIncrease(PAGES_COMPLETED, fromS, toS);
  } while (exact < crawl.pages && Date.now() < deadline);
  const range = `${Math.ceil(toS - fromS)}s`;
  const estimated = Number((await query(`sum(increase(${PAGES_COMPLETED}[${range}]))`, toS)).result[0]?.value?.[1] ?? NaN);
  return {
    crawl_pages: crawl.pages,
    counter_increase_exact: exact,
    increase_promql: estimated,
    window_s: toS - fromS,
    scraped_after_end_s: toS - crawl.endedAt / 1000,
    baseline,
  };
}

/**
 * What the dashboards show beyond the crawls of the other scenarios, so that every panel has data: a
 * failed extraction, rate-limit pauses (a crawl of pages that answer 429 once), refused and unknown
 * requests (401, 404), the API's own 429s (a burst past the per-key limit on a key of its own) and a webhook
 * delivery.
 */
async function panelActivity(ctx: Context): Promise<Numbers> {
  const extract = (model: string, extra: Record<string, unknown> = {}, expected: number[] = []) =>
    ctx.api.steady(
      'POST',
      '/api/v1/extract',
      {
        timeoutMs: 150_000,
        body: {
          url: `http://${ctx.siteHost}:${ctx.sitePort}/product/3`,
          schema: { name: 'string' },
          fetch_mode: 'static',
          llm_config: { provider: 'openai', model, api_key: ctx.llmKey, base_url: ctx.modelBaseUrl },
          ...extra,
        },
      },
      180_000,
      expected,
    );
  // The model fails: the extraction's documented answer is 502 upstream-failure.
  const failing = await extract('fail-500', {}, [502]);
  if (failing.status !== 502) throw new Error(`the failing extraction answered ${failing.status}, not 502`);
  const hooked = await extract('gpt-4o-mini', { webhook_url: `http://${ctx.siteHost}:${ctx.sitePort}/hook` });
  const limited = await ctx.api.json('POST', '/api/v1/crawl', {
    body: {
      url: `http://${ctx.siteHost}:${ctx.sitePort}/r/limited/n/0?size=12`,
      schema: { name: 'string' },
      llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: ctx.llmKey, base_url: ctx.modelBaseUrl },
      options: { max_pages: 12, max_depth: 3, concurrency: 4 },
    },
  });
  const unknown = await ctx.api.steady('GET', '/api/v1/jobs/01NOSUCHJOB0000000000000000');
  const [host] = await addresses('tasks.api');
  const refused = await call(host, 8080, 'GET', '/api/v1/jobs', { key: 'glk_' + 'x'.repeat(40) });
  const burstKey = (await ctx.api.json('POST', '/api/v1/keys', { body: { name: 'swarm-burst' } })).key as string;
  let sent = 0;
  let limitedAt = 0;
  while (!limitedAt && sent < 2000) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(host, 8080, 'GET', '/api/v1/jobs?limit=1', { key: burstKey }).catch(() => null)),
    );
    sent += answers.length;
    if (answers.some((a) => a?.status === 429)) limitedAt = sent;
  }
  // An auth profile's login (the auth panel's logins and session age): the login site beside the test site.
  const loginPort = ctx.sitePort + 1;
  const profile = await ctx.api.json('POST', '/api/v1/auth-profiles', {
    body: {
      name: 'Swarm members',
      hosts: [ctx.siteHost],
      login: {
        type: 'form',
        url: `http://${ctx.siteHost}:${loginPort}/login`,
        csrf_field: 'csrf_token',
        username: LOGIN_USER,
        password: LOGIN_PASSWORD,
      },
      check: { session_cookie: 'sid', logged_in_selector: 'a[href="/logout"]' },
    },
  });
  const members = await ctx.api.steady('POST', '/api/v1/scrape', {
    timeoutMs: 150_000,
    body: { url: `http://${ctx.siteHost}:${loginPort}/members`, formats: ['markdown'], fetch_mode: 'static', auth_profile: profile.id },
  });
  if (members.status !== 200) throw new Error(`the scrape with an auth profile answered ${members.status}`);
  await finished(ctx, { id: limited.job_id, tag: 'limited', size: 12, startedAt: Date.now() });
  // Two scrape intervals: every replica's counters are in Prometheus.
  await pause(35_000);
  return {
    failing_extract: failing.status,
    webhook_extract: hooked.status,
    unknown_job: unknown.status,
    bad_key: refused.status,
    burst_429_after: limitedAt,
    auth_profile_scrape: members.status,
  };
}

/** 7. Prometheus in the stack. */
export async function prometheus(ctx: Context): Promise<{ problems: string[]; numbers: Numbers }> {
  const problems: string[] = [];
  const activity = await panelActivity(ctx);
  const counter = ctx.shared.pagesCounter as Numbers | undefined;
  if (!counter || counter.counter_increase_exact !== counter.crawl_pages) {
    problems.push(`pages counter over scenario 1: ${JSON.stringify(counter)}`);
  }
  if (ctx.shared.targetsAt3 && !ctx.shared.targetsAt3.ok) problems.push(`targets at 3 crawlers: ${JSON.stringify(ctx.shared.targetsAt3)}`);
  const targets = await targetsMatchReplicas(ctx);
  if (!targets.ok) problems.push(`targets up ${JSON.stringify(targets.up)} against replicas ${JSON.stringify(targets.replicas)}`);
  // The alert rules load and evaluate.
  const shipped = (parseYaml(readFileSync('/testbed/alerts.yml', 'utf8')) as { groups: Array<{ rules: unknown[] }> }).groups.flatMap(
    (g) => g.rules,
  );
  const rules = (await prom('/api/v1/rules')).groups.flatMap((g: any) => g.rules) as Array<{
    name: string;
    health: string;
    lastError?: string;
  }>;
  if (rules.length !== shipped.length) problems.push(`${rules.length} rules loaded, ${shipped.length} shipped`);
  const unhealthy = rules.filter((r) => r.health !== 'ok');
  if (unhealthy.length > 0) problems.push(`rules not ok: ${JSON.stringify(unhealthy.map((r) => [r.name, r.health, r.lastError]))}`);
  // Every Grafana panel's queries, as Grafana would send them for the whole run so far.
  const from = Math.floor((ctx.shared.startedAt as number) / 1000);
  const to = Math.floor(Date.now() / 1000);
  const timing = { from, to, scrapeIntervalS: 15 };
  const macros = timeMacros(timing);
  const empty: string[] = [];
  let panels = 0;
  // A series that appeared at the last scrapes may not yet have the two samples rate() needs: an empty query is
  // asked again (every 5 s, until 90 s after the first ask) before it counts as without data.
  const settleBy = Date.now() + 90_000;
  for (const dashboard of loadDashboards('/testbed/grafana/dashboards')) {
    const values: Record<string, string> = {};
    for (const variable of dashboard.variables) {
      const { match, label } = parseLabelValues(interpolate(variable.query, macros, values));
      const options = (await prom(`/api/v1/label/${label}/values?match[]=${encodeURIComponent(match)}`)) as string[];
      values[variable.name] = formatVariable(variable, options, true);
    }
    for (const panel of dashboard.panels) {
      panels++;
      for (const target of panel.targets) {
        const expr = interpolate(target.expr, macros, values);
        // Asked again, the query ends at the time of asking (the panel as Grafana refreshes it).
        const ask = () => {
          const end = Math.max(to, Math.floor(Date.now() / 1000));
          const path = target.instant
            ? `/api/v1/query?query=${encodeURIComponent(expr)}&time=${end}`
            : `/api/v1/query_range?query=${encodeURIComponent(expr)}&start=${from}&end=${end}&step=${macros.intervalMs / 1000}`;
          return prom(path).catch((error: Error) => ({ result: [], error: error.message }));
        };
        let data = await ask();
        while (data.result.length === 0 && Date.now() < settleBy) {
          await pause(5_000);
          data = await ask();
        }
        if (data.result.length === 0) empty.push(`${dashboard.title} / ${panel.title} [${target.refId}]`);
      }
    }
  }
  if (empty.length > 0) problems.push(`${empty.length} panel queries without data: ${empty.join('; ')}`);
  const build = await prom('/api/v1/status/buildinfo').catch(() => ({}));
  return {
    problems,
    numbers: {
      prometheus_version: build.version,
      targets_up: targets.up,
      targets_at_3_crawlers: ctx.shared.targetsAt3 ?? null,
      rules_loaded: rules.length,
      panels,
      panel_queries_without_data: empty,
      pages_counter: counter ?? null,
      activity_for_panels: activity,
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------------------

/**
 * The sha256 of each named variable in the environment of the container's node process (read from
 * /proc inside the container: the values themselves never leave it). The node process, not PID 1: tini
 * has the app's arguments too, but the environment from before docker/entrypoint.sh read the secrets.
 */
async function envHashes(container: string, names: string[]): Promise<Record<string, string>> {
  const script = `
    const fs = require('fs'); const crypto = require('crypto');
    const pid = fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).find((p) => {
      try {
        const argv = fs.readFileSync('/proc/' + p + '/cmdline', 'utf8').split('\\0');
        return argv[0].split('/').pop() === 'node' && argv.some((a) => a.startsWith('dist/apps/'));
      } catch { return false; }
    });
    const env = Object.fromEntries(fs.readFileSync('/proc/' + pid + '/environ', 'utf8').split('\\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    const out = {}; for (const n of ${JSON.stringify(names)}) out[n] = env[n] === undefined ? null : crypto.createHash('sha256').update(env[n]).digest('hex');
    process.stdout.write(JSON.stringify(out));`;
  return JSON.parse(await mustDocker(['exec', container, 'node', '-e', script]));
}

/** 6. Secrets from /run/secrets; none visible in service inspect, logs or answers; rotation with GLEANER_PREVIOUS_SECRETS. */
export async function secrets(
  ctx: Context,
  values: Record<string, string>,
  leaks: string[],
): Promise<{ problems: string[]; numbers: Numbers }> {
  const problems: string[] = [];
  const sha = (v: string) => createHash('sha256').update(v).digest('hex');
  // Each variable in each app container is the secret file's value.
  const checked: Record<string, number> = {};
  for (const name of ['api', 'crawler']) {
    for (const container of await containersOf(service(ctx, name))) {
      const hashes = await envHashes(container, Object.keys(values));
      for (const [variable, value] of Object.entries(values)) {
        if (hashes[variable] !== sha(value)) problems.push(`${name} ${container.slice(0, 12)}: ${variable} is not the secret's value`);
        else checked[variable] = (checked[variable] ?? 0) + 1;
      }
    }
  }
  const hung: string[] = [];
  const secretValues = [...Object.values(values), ctx.llmKey];
  const found = (text: string) => secretValues.filter((v) => v && text.includes(v)).length;
  for (const name of ['api', 'crawler']) {
    const inspect = await mustDocker(['service', 'inspect', service(ctx, name)]);
    if (found(inspect) > 0) problems.push(`docker service inspect ${service(ctx, name)} shows ${found(inspect)} secret values`);
    const logs = await serviceLogs(ctx, service(ctx, name), hung);
    const hits = found(logs);
    if (hits > 0) problems.push(`docker service logs ${service(ctx, name)} shows ${hits} secret values`);
  }
  if (leaks.length > 0) problems.push(`API answers held secret values: ${leaks.length} answers`);

  // Rotation: a provider key stored under the first secret is still usable after the swap.
  const rotation = await rotate(ctx, values, hung);
  problems.push(...rotation.problems);
  return { problems, numbers: { variables_checked: checked, rotation: rotation.numbers, service_logs_hung: hung } };
}

/**
 * `docker service logs --raw SERVICE`, stdout and stderr. Docker's `service logs` sometimes never ends
 * (moby/moby#38640, docker/cli#4678; seen here with Docker 20.10): after 90 s its output so far is kept and
 * the same json-file logs are read container by container (`docker logs` of each of the service's task
 * containers, exited ones included: on one node these are all of its logs); `hung` records it.
 */
async function serviceLogs(ctx: Context, name: string, hung: string[]): Promise<string> {
  const logs = await docker(['service', 'logs', '--raw', name], { timeoutMs: 90_000 });
  let text = `${logs.stdout}\n${logs.stderr}`;
  if (!logs.timedOut) return text;
  hung.push(name);
  ctx.log(`docker service logs ${name} still running after 90 s: reading its containers' logs instead`);
  const all = await mustDocker(['ps', '-a', '-q', '--filter', `label=com.docker.swarm.service.name=${name}`]);
  for (const container of all.split('\n').filter(Boolean)) {
    const one = await docker(['logs', container], { timeoutMs: 90_000 });
    text += `\n${one.stdout}\n${one.stderr}`;
  }
  return text;
}

async function rotate(ctx: Context, values: Record<string, string>, hung: string[]): Promise<{ problems: string[]; numbers: Numbers }> {
  const problems: string[] = [];
  const stored = 'sk-stored-' + createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 24);
  values.__stored_provider_key = stored;
  const put = await ctx.api.steady('PUT', '/api/v1/llm/keys', {
    body: { provider: 'openai', is_enabled: true, api_key: stored, base_url: ctx.modelBaseUrl },
  });
  if (put.status >= 300) problems.push(`PUT /llm/keys: ${put.status} ${put.text.slice(0, 200)}`);
  const extractWithStoredKey = async () =>
    ctx.api.steady('POST', '/api/v1/extract', {
      timeoutMs: 150_000,
      body: {
        url: `http://${ctx.siteHost}:${ctx.sitePort}/product/7`,
        schema: { name: 'string' },
        fetch_mode: 'static',
        llm_config: { provider: 'openai', model: 'gpt-4o-mini' },
      },
    });
  const before = await extractWithStoredKey();
  if (before.status !== 200) problems.push(`extract with the stored key before rotation: ${before.status} ${before.text.slice(0, 200)}`);
  const next = createHash('sha256').update(`${Math.random()}`).digest('base64');
  await mustDocker(['secret', 'create', 'gleaner_secret_2', '-'], { input: next });
  await mustDocker(['secret', 'create', 'gleaner_previous_secrets_2', '-'], { input: values.GLEANER_SECRET });
  const started = Date.now();
  for (const name of ['crawler', 'api']) {
    ctx.log(`rotating the secret of ${service(ctx, name)}`);
    await mustDocker([
      'service',
      'update',
      '--detach=false',
      '--secret-rm',
      'gleaner_secret',
      '--secret-add',
      'source=gleaner_secret_2,target=gleaner_secret,uid=1000,gid=1000,mode=0400',
      '--secret-rm',
      'gleaner_previous_secrets',
      '--secret-add',
      'source=gleaner_previous_secrets_2,target=gleaner_previous_secrets,uid=1000,gid=1000,mode=0400',
      service(ctx, name),
    ]);
  }
  values.GLEANER_PREVIOUS_SECRETS = values.GLEANER_SECRET;
  values.GLEANER_SECRET = next;
  const after = await extractWithStoredKey();
  if (after.status !== 200) problems.push(`extract with the stored key after rotation: ${after.status} ${after.text.slice(0, 200)}`);
  const resealed =
    /llm provider keys re-sealed/.test(await serviceLogs(ctx, service(ctx, 'api'), hung)) ||
    /llm provider keys re-sealed/.test(await serviceLogs(ctx, service(ctx, 'crawler'), hung));
  if (!resealed) problems.push('no "llm provider keys re-sealed" in the logs after rotation');
  return { problems, numbers: { seconds: (Date.now() - started) / 1000, resealed } };
}

// ---------------------------------------------------------------------------------------------------
// Backups
// ---------------------------------------------------------------------------------------------------

const BACKUP_IMAGE = 'debian:bookworm';

async function scale(ctx: Context, name: string, n: number): Promise<void> {
  ctx.log(`docker service scale ${service(ctx, name)}=${n}`);
  await mustDocker(['service', 'scale', '--detach=false', `${service(ctx, name)}=${n}`]);
}

/**
 * A one-off container on a service's volume, the service scaled to 0 meanwhile (a consistent copy):
 * `docker run --rm -v <volume>:/data[:ro] -v gleaner-backups:/backup debian:bookworm ...`. Returns its seconds.
 */
async function onStoppedVolume(ctx: Context, name: string, volume: string, command: string[]): Promise<number> {
  const started = Date.now();
  await scale(ctx, name, 0);
  await mustDocker(['run', '--rm', '-v', volume, '-v', 'gleaner-backups:/backup', BACKUP_IMAGE, ...command]);
  await scale(ctx, name, 1);
  return (Date.now() - started) / 1000;
}

const backup = (ctx: Context, name: string, volume: string, file: string) =>
  onStoppedVolume(ctx, name, `${volume}:/data:ro`, ['tar', '-C', '/data', '-czf', `/backup/${file}`, '.']);

const restore = (ctx: Context, name: string, volume: string, file: string) =>
  onStoppedVolume(ctx, name, `${volume}:/data`, ['sh', '-c', `find /data -mindepth 1 -delete && tar -C /data -xzf /backup/${file}`]);

async function redisCli(ctx: Context, args: string[]): Promise<string> {
  const [container] = await containersOf(service(ctx, 'redis'));
  return (await mustDocker(['exec', container, 'redis-cli', ...args])).trim();
}

/** 8. Volume-level backup and restore of the store and of Redis. */
export async function backups(ctx: Context): Promise<{ problems: string[]; numbers: Numbers }> {
  const problems: string[] = [];
  const numbers: Numbers = { mongodump: 'not run: the store here is the MongoDB-wire test server (mongodump needs a real MongoDB)' };
  // The store: a crawl finished before the backup is there after the restore; one made after it is gone.
  const kept = await startCrawl(ctx, 'backup-before', 30);
  await finished(ctx, kept);
  numbers.store_backup_s = await backup(ctx, 'mongo', `${ctx.stack}_mongo-data`, 'mongo-data.tgz');
  await jobReadable(ctx, kept.id);
  const lost = await startCrawl(ctx, 'backup-after', 10);
  await finished(ctx, lost);
  numbers.store_restore_s = await restore(ctx, 'mongo', `${ctx.stack}_mongo-data`, 'mongo-data.tgz');
  await jobReadable(ctx, kept.id);
  const check = await checkCrawl(ctx, kept, 1);
  problems.push(...check.problems.map((p) => `restored crawl: ${p}`));
  const gone = await ctx.api.steady('GET', `/api/v1/jobs/${lost.id}`);
  if (gone.status !== 404) problems.push(`the crawl made after the backup is ${gone.status} after the restore, expected 404`);
  // Redis: a key written before the backup has its old value after the restore.
  await redisCli(ctx, ['SET', 'gleaner-swarm:marker', 'before']);
  numbers.redis_backup_s = await backup(ctx, 'redis', `${ctx.stack}_redis-data`, 'redis-data.tgz');
  await redisCliWhenUp(ctx);
  await redisCli(ctx, ['SET', 'gleaner-swarm:marker', 'after']);
  numbers.redis_restore_s = await restore(ctx, 'redis', `${ctx.stack}_redis-data`, 'redis-data.tgz');
  await redisCliWhenUp(ctx);
  const marker = await redisCli(ctx, ['GET', 'gleaner-swarm:marker']);
  if (marker !== 'before') problems.push(`Redis marker after the restore: ${marker}, expected "before"`);
  // The stack works on the restored data.
  const after = await startCrawl(ctx, 'after-restore', 20);
  await finished(ctx, after);
  problems.push(...(await checkCrawl(ctx, after, 1)).problems.map((p) => `crawl after the restores: ${p}`));
  return { problems, numbers };
}

/** Waits until the store answers again (a job read is 200). */
async function jobReadable(ctx: Context, id: string): Promise<void> {
  await untilDone(
    'store back',
    async () => (await ctx.api.once('GET', `/api/v1/jobs/${id}`).catch(() => null))?.status === 200,
    async () => 0,
    180_000,
  );
}

async function redisCliWhenUp(ctx: Context): Promise<void> {
  await untilDone(
    'redis back',
    async () => (await redisCli(ctx, ['PING']).catch(() => '')) === 'PONG',
    async () => 0,
    120_000,
  );
}

export { job };
