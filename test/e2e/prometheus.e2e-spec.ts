/**
 * The shipped dashboards and alerts, proven against a real Prometheus (Debian's binary on a free
 * loopback port, scraping every second). It scrapes a cluster deployment (2 API and 2 crawler
 * processes on Redis and the MongoDB-wire server) and an embedded process while real work goes
 * through them: extractions (one of a failing page, one with a failing model, one that outlives the
 * API's wait and answers 504), crawls that meet 429s with Retry-After (limited.test, and 45 distinct
 * hosts behind hub.test) and failing pages, webhooks that fail once and are retried, refused keys and
 * a per-key rate limit. Then every panel query of every dashboard is evaluated through Prometheus's
 * HTTP API with the dashboard variables substituted as Grafana substitutes them, and every alert
 * rule is loaded, evaluated and has every series it reads. Label cardinality is checked on the same
 * run: 45 rate-limiting domains must not make 45 domain series.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startLoginSite, LOGIN_PASSWORD, LOGIN_USER, type LoginSite } from '../fixtures/login-site/login-site';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { prometheusConfig, startPrometheus, type Prometheus } from '../harness/prometheus';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { formatVariable, interpolate, loadDashboards, parseLabelValues, selectors, timeMacros, type Dashboard } from './grafana-dashboards';
import { http, readSse, tempDir, waitFor } from './helpers';
import { ROOT, TEST_API_MAIN, TEST_CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(150_000);

const KEY = 'glk_' + 'M'.repeat(20) + 'p'.repeat(20);
const SCRAPE_INTERVAL_S = 1;
/** Distinct rate-limiting hosts of the cardinality crawl: more than twice the per-process domain cap. */
const HUB_HOSTS = 45;
/** gleaner_rate_limit_pauses_total keeps the first 20 domains of a process; the rest are `other`. */
const DOMAIN_LABEL_CAP = 20;
/**
 * The stated bound: Gleaner's own series (gleaner_*) per process, whatever the crawl meets. The
 * label sets are closed (routes are templates, statuses and outcomes enumerations, models and
 * domains capped at 20 + other); this run's processes stay well below it (see the log line).
 */
const GLEANER_SERIES_PER_PROCESS_BOUND = 1500;
/** The API replica whose per-key rate limit the test exhausts (its own key, nothing else uses it). */
const API_B_RATE_LIMIT = 12;

const SCHEMA = { name: 'string', price: 'string' };
const TERMINAL = ['completed', 'failed', 'cancelled'];

describeWith(['redis', 'mongodb'], 'dashboards and alerts on a real Prometheus (2 API + 2 crawlers + embedded)', () => {
  let play: Playground;
  let models: ModelServer;
  let receiver: WebhookReceiver;
  let loginSite: LoginSite;
  let prom: Prometheus;
  const processes: AppProcess[] = [];
  /** Set by afterAll: a set-up that outlived its bound must not leave a process it starts later running (jest would not exit). */
  let closing = false;
  let apiA: AppProcess;
  let apiB: AppProcess;
  let crawler1: AppProcess;
  let crawler2: AppProcess;
  let embedded: AppProcess;
  let startedAt: number;
  let workDoneAt = 0;
  let dashboards: Dashboard[];
  /** The auth profile the work logs in with: the one id a `profile` label may carry here. */
  let profileId = '';

  const llm = (model = 'gpt-4o-mini') => ({ provider: 'openai', model, api_key: 'sk-prom-test', base_url: models.openaiBaseUrl });
  const job = async (base: string, id: string, key = KEY) => (await http(base, 'GET', `/api/v1/jobs/${id}`, { key })).body;
  const terminal = (base: string, id: string) =>
    waitFor(async () => {
      const j = await job(base, id).catch(() => null);
      return j && TERMINAL.includes(j.status) ? j : null;
    }, 120_000);
  const nowS = () => Date.now() / 1000;

  /** Resolves once Prometheus has scraped every target at least once after `since` (seconds). */
  async function scrapedAfter(since: number): Promise<void> {
    await waitFor(
      async () => {
        const targets = await prom.targets();
        return targets.length === 5 && targets.every((t) => t.health === 'up' && Date.parse(t.lastScrape) / 1000 > since + 0.01);
      },
      30_000,
      100,
    );
  }

  beforeAll(async () => {
    const setupStarted = Date.now();
    assertBuilt();
    dashboards = loadDashboards();
    [play, models, receiver, loginSite] = await Promise.all([
      startPlayground(),
      startModelServer(),
      startWebhookReceiver(),
      startLoginSite(),
    ]);
    const redisDb = 13;
    spawnSync('redis-cli', ['-u', `${serverUrl('redis')}/${redisDb}`, 'flushdb']);
    const common = {
      GLEANER_BOOTSTRAP_KEY: KEY,
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
      GLEANER_RESOLVE: play.resolve,
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
      GLEANER_LLM_RETRIES: '0',
      GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
      // A pump that finds a stream locked comes back when the lock (2 × timeout + 5 s) runs out: keep it short.
      GLEANER_WEBHOOK_TIMEOUT_MS: '2000',
      GLEANER_RATE_LIMIT_BACKOFF_BASE_MS: '500',
      GLEANER_QUEUE_STALLED_MS: '5000',
      // Room for a machine whose cores are saturated by other work.
      GLEANER_CONTENT_TIMEOUT_MS: '60000',
      // A pool nothing names: its proxy's series are there at 0 (the dashboard's proxy panel has data), no credential in them.
      GLEANER_PROXY_POOLS: JSON.stringify({ metrics: ['http://metrics-user:metrics-pass@127.0.0.1:9'] }),
      LOG_LEVEL: 'info',
    };
    const cluster = {
      ...common,
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_prometheus')}`,
      REDIS_URL: `${serverUrl('redis')}/${redisDb}`,
      GLEANER_SECRET: 'prometheus-test-secret-0123456789abcdef',
    };
    // One at a time: Nest processes starting together on a saturated machine can outlast the health wait.
    const started: AppProcess[] = [];
    const start = async (...args: Parameters<typeof startProcess>) => {
      const p = await startProcess(...args);
      if (closing) {
        await p.stop('SIGKILL');
        throw new Error(`set-up ended before ${p.name} started`);
      }
      processes.push(p);
      started.push(p);
    };
    await start('api-a', TEST_API_MAIN, ['--role=api'], cluster, 'PORT');
    // Replica B answers 504 after 1 s of waiting for an extraction and limits each key to 12 requests a minute.
    await start(
      'api-b',
      TEST_API_MAIN,
      ['--role=api'],
      { ...cluster, GLEANER_EXTRACT_WAIT_MS: '1000', GLEANER_RATE_LIMIT_PER_MINUTE: String(API_B_RATE_LIMIT) },
      'PORT',
    );
    await start('crawler-1', TEST_CRAWLER_MAIN, [], cluster, 'CRAWLER_PORT');
    await start('crawler-2', TEST_CRAWLER_MAIN, [], cluster, 'CRAWLER_PORT');
    await start('embedded', TEST_API_MAIN, [], { ...common, DATA_DIR: tempDir('gleaner-prometheus-embedded-') }, 'PORT');
    const byName = (name: string) => started.find((p) => p.name === name)!;
    [apiA, apiB, crawler1, crawler2, embedded] = ['api-a', 'api-b', 'crawler-1', 'crawler-2', 'embedded'].map(byName);
    const target = (p: AppProcess) => `127.0.0.1:${p.port}`;
    startedAt = nowS();
    prom = await startPrometheus(
      prometheusConfig(
        [
          { job: 'gleaner-api', targets: [apiA, apiB].map(target) },
          { job: 'gleaner-crawler', targets: [crawler1, crawler2].map(target) },
          { job: 'gleaner-embedded', targets: [target(embedded)] },
        ],
        [join(ROOT, 'docker', 'alerts.yml')],
        `${SCRAPE_INTERVAL_S}s`,
      ),
    );
    if (closing) await prom.stop();
    await scrapedAfter(startedAt);
    console.log(`set-up (5 processes, Prometheus, first scrape): ${((Date.now() - setupStarted) / 1000).toFixed(1)} s`);
    // Five Nest processes started one after the other beside CI's soak and fuzzing took 105-120 s in rehearsals,
    // and once more than the 150 s the tests get: the set-up has its own, longer bound.
  }, 300_000);

  afterAll(async () => {
    closing = true;
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await prom?.stop();
    await Promise.all([play?.close(), models?.close(), receiver?.close(), loginSite?.close()]);
  });

  it('drives real work through every process: extractions, crawls with 429s and failed pages, webhook retries, refused keys', async () => {
    const phases: string[] = [];
    let last = Date.now();
    const mark = (phase: string) => {
      phases.push(`${phase} ${((Date.now() - last) / 1000).toFixed(1)}`);
      last = Date.now();
    };
    // The crawl of many domains: every h<N>.test answers its first request 429 with Retry-After: 1.
    for (let i = 1; i <= HUB_HOSTS; i++) play.limit(`h${i}.test`, { count: 1, status: 429, retryAfter: 1 });
    play.limit('limited.test', { count: 2, status: 429, retryAfter: 1 });
    const crawl = async (base: string, url: string, options: Record<string, unknown>) => {
      const res = await http(base, 'POST', '/api/v1/crawl', { key: KEY, body: { url, schema: SCHEMA, llm_config: llm(), options } });
      expect([url, res.status]).toEqual([url, 202]);
      return res.body.job_id as string;
    };
    const hub = await crawl(apiA.url, play.url('hub.test', `/?hosts=${HUB_HOSTS}`), {
      same_domain_only: false,
      max_depth: 1,
      max_pages: HUB_HOSTS + 1,
      concurrency: 16,
    });
    const redirects = await crawl(apiA.url, play.url('shop.test', '/redirects'), { max_depth: 1, concurrency: 4 });
    const limited = await crawl(embedded.url, play.url('limited.test', '/'), { max_depth: 1, concurrency: 4 });

    // A key of its own for replica B, whose per-key limit the test runs into at the end.
    const bKey = (await http(apiA.url, 'POST', '/api/v1/keys', { key: KEY, body: { name: 'replica-b' } })).body.key as string;
    const extract = (base: string, path: string, model = 'gpt-4o-mini', key = KEY) =>
      http(base, 'POST', '/api/v1/extract', {
        key,
        body: { url: play.url('shop.test', path), schema: SCHEMA, fetch_mode: 'static', llm_config: llm(model) },
      });
    // Webhooks that fail once and are delivered on the retry, on both deployments (started early: a retry can
    // wait for the delivery sweep).
    const hooked: Array<[string, string]> = [];
    for (const base of [apiA.url, embedded.url]) {
      const res = await http(base, 'POST', '/api/v1/test-jobs', {
        key: KEY,
        body: { steps: 2, step_ms: 20, webhook_url: `${receiver.url}/fail-first` },
      });
      expect(res.status).toBe(201);
      hooked.push([base, res.body.id]);
    }
    mark('crawls started');
    const [okA, okEmbedded, boom, modelFails, tooSlow, invents] = await Promise.all([
      extract(apiA.url, '/product/1'),
      extract(embedded.url, '/product/2'),
      extract(apiA.url, '/boom'),
      extract(embedded.url, '/product/3', 'fail-500'),
      extract(apiB.url, '/product/4', 'slow-2500', bKey),
      // A model that invents a value (the price): the grounding panels show which model invents.
      extract(embedded.url, '/product/6', 'gpt-4o-mini+invent'),
    ]);
    expect([invents.status, invents.body?.metadata?.ungrounded_fields]).toEqual([200, 1]);
    expect([okA.status, okA.status === 200 ? null : okA.text]).toEqual([200, null]);
    expect([okEmbedded.status, okEmbedded.status === 200 ? null : okEmbedded.text]).toEqual([200, null]);
    expect(boom.status).toBeGreaterThanOrEqual(400);
    expect(modelFails.status).toBeGreaterThanOrEqual(400);
    expect(tooSlow.status).toBe(504);
    // The failing model once more after Prometheus saw its first call: its error rate is then above 0.
    await waitFor(async () => (await prom.query('gleaner_llm_calls_total{model="fail-500"}')).length > 0, 30_000, 100);
    expect((await extract(embedded.url, '/product/5', 'fail-500')).status).toBeGreaterThanOrEqual(400);

    mark('extractions');
    // The webhooks' retries: an SSE client meanwhile.
    const stream = await readSse(`${apiA.url}/api/v1/jobs/${hooked[0][1]}/stream`, { key: KEY, timeoutMs: 60_000 });
    expect(stream.ended).toBe(true);
    for (const [base, id] of hooked) {
      await waitFor(async () => {
        const d = (await http(base, 'GET', `/api/v1/jobs/${id}/webhooks`, { key: KEY })).body.deliveries as Array<{ status: string }>;
        return d.some((x) => x.status === 'retrying') && d.filter((x) => x.status === 'success').length >= 4;
      }, 60_000);
    }

    mark('webhook retries');
    // Refused credentials on every API process, and replica B's per-key limit.
    for (const base of [apiA.url, apiB.url, embedded.url]) {
      expect((await http(base, 'GET', '/api/v1/jobs', { key: 'glk_' + 'x'.repeat(40) })).status).toBe(401);
    }
    let limitedAt = 0;
    for (let i = 1; i <= API_B_RATE_LIMIT * 3 && !limitedAt; i++) {
      if ((await http(apiB.url, 'GET', '/api/v1/jobs', { key: bKey })).status === 429) limitedAt = i;
    }
    expect(limitedAt).toBeGreaterThan(0);

    mark('refused keys, rate limit');
    // An auth profile's first login (the auth panel's logins and session age): a members page scraped with it.
    const profile = await http(embedded.url, 'POST', '/api/v1/auth-profiles', {
      key: KEY,
      body: {
        name: 'Members',
        hosts: ['members.test'],
        login: {
          type: 'form',
          url: loginSite.url('members.test', '/login'),
          csrf_field: 'csrf_token',
          username: LOGIN_USER,
          password: LOGIN_PASSWORD,
        },
        check: { session_cookie: 'sid', logged_in_selector: 'a[href="/logout"]' },
      },
    });
    expect(profile.status).toBe(201);
    profileId = profile.body.id;
    const members = await http(embedded.url, 'POST', '/api/v1/scrape', {
      key: KEY,
      body: { url: loginSite.url('members.test', '/members'), formats: ['markdown'], fetch_mode: 'static', auth_profile: profile.body.id },
    });
    expect([members.status, loginSite.stats.logins]).toEqual([200, 1]);
    mark('auth profile login');
    const [hubJob, redirectsJob, limitedJob] = [
      await terminal(apiA.url, hub),
      await terminal(apiA.url, redirects),
      await terminal(embedded.url, limited),
    ];
    expect(hubJob).toMatchObject({ status: 'completed', page_count: HUB_HOSTS + 1 });
    expect(redirectsJob.failed_count).toBeGreaterThan(0);
    expect(limitedJob).toMatchObject({ status: 'completed', failed_count: 0 });
    expect(play.requestsTo('limited.test').filter((r) => r.status === 429)).toHaveLength(2);
    expect(new Set(play.requests.filter((r) => r.status === 429 && /^h\d+\.test$/.test(r.host)).map((r) => r.host)).size).toBe(HUB_HOSTS);
    // The extraction B gave up waiting for finishes on a crawler: nothing is left running anywhere.
    mark('crawls finished');
    await terminal(apiA.url, tooSlow.body.job_id ?? tooSlow.body.id);
    workDoneAt = nowS();
    await scrapedAfter(workDoneAt);
    // A rate() panel needs two samples of a series inside its window (4 scrape intervals): a series born in the
    // last phases (the rate limit's 429s) may have one sample so far when scrapes come late on a busy machine.
    await scrapedAfter(nowS());
    mark('scraped');
    console.log(`work phases (s): ${phases.join(', ')}`);
  });

  /** Evaluates every panel target with the given variable values; returns the failures, by panel. */
  async function evaluatePanels(selection: 'defaults' | 'every value', list: Dashboard[] = dashboards): Promise<string[]> {
    const to = nowS();
    const timing = { from: startedAt, to, scrapeIntervalS: SCRAPE_INTERVAL_S };
    const macros = timeMacros(timing);
    const failures: string[] = [];
    for (const dashboard of list) {
      const values: Record<string, string> = {};
      for (const variable of dashboard.variables) {
        const { match, label } = parseLabelValues(interpolate(variable.query, macros, values));
        const options = await prom.labelValues(label, match);
        if (options.length === 0) failures.push(`${dashboard.title} / variable $${variable.name}: no values for ${variable.query}`);
        if (selection === 'defaults') {
          const current = variable.current;
          const all = current === '$__all' || (Array.isArray(current) && current.includes('$__all'));
          values[variable.name] = formatVariable(variable, all ? options : Array.isArray(current) ? current : [current], all);
        } else {
          values[variable.name] = formatVariable(variable, options, false);
        }
      }
      for (const panel of dashboard.panels) {
        for (const target of panel.targets) {
          const expr = interpolate(target.expr, macros, values);
          const where = `${dashboard.title} / ${panel.title} [${target.refId}]`;
          try {
            const result = target.instant
              ? await prom.query(expr, to)
              : await prom.queryRange(expr, timing.from, to, macros.intervalMs / 1000);
            if (result.length === 0) failures.push(`${where}: no data for ${expr} (${await emptySelectors(expr)})`);
          } catch (error) {
            failures.push(`${where}: ${(error as Error).message} in ${expr}`);
          }
        }
      }
    }
    return failures;
  }

  /** The selectors of an expression that match no series (what to fix when a panel shows "No data"). */
  async function emptySelectors(expr: string): Promise<string> {
    const empty: string[] = [];
    for (const s of selectors(expr)) if ((await prom.query(`count(${s})`)).length === 0) empty.push(s);
    return empty.length ? `no series: ${empty.join(', ')}` : 'every selector has series';
  }

  it('returns data for every panel of every dashboard, with the default variable values', async () => {
    expect(workDoneAt).toBeGreaterThan(0);
    const panels = dashboards.flatMap((d) => d.panels);
    expect(panels.length).toBeGreaterThanOrEqual(48);
    expect(await evaluatePanels('defaults')).toEqual([]);
    // The check itself: a misspelt metric and a label value that never occurs are reported by title.
    const crawl = dashboards.find((d) => d.title === 'Gleaner crawls')!;
    const broken: Dashboard = {
      ...crawl,
      panels: [
        {
          ...crawl.panels[0],
          title: 'Misspelt',
          targets: [{ refId: 'A', instant: false, expr: 'sum(rate(gleaner_crawl_page_total[$__rate_interval]))' }],
        },
        {
          ...crawl.panels[0],
          title: 'Wrong label value',
          targets: [{ refId: 'A', instant: true, expr: 'sum(gleaner_pages_total{outcome="sucess", instance=~"$instance"})' }],
        },
      ],
    };
    const failures = await evaluatePanels('defaults', [broken]);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/^Gleaner crawls \/ Misspelt \[A\]: no data .*no series: gleaner_crawl_page_total/);
    expect(failures[1]).toMatch(/^Gleaner crawls \/ Wrong label value \[A\]: no data/);
  });

  it('returns data for every panel with every role and instance selected explicitly (Grafana multi-value regex)', async () => {
    expect(await evaluatePanels('every value')).toEqual([]);
  });

  it('shows what happened: requests by status, 429s, pauses, failed pages, webhook retries, no job left running', async () => {
    const value = async (expr: string) => Number((await prom.query(expr))[0]?.value?.[1] ?? NaN);
    const range = `${Math.ceil(nowS() - startedAt) + 5}s`;
    // Each series' highest value in the run, summed: a scrape that timed out at the end (a saturated
    // machine) leaves the series stale at "now", not gone from the run.
    const total = (selector: string) => value(`sum(max_over_time(${selector}[${range}]))`);
    expect(await total('gleaner_http_requests_total{job="gleaner-api", status="504"}')).toBeGreaterThan(0);
    // Counters that start at 0 show their first event in increase(): a crawl's first failed page.
    expect(await value(`sum(increase(gleaner_crawl_pages_total{status="failed"}[${range}]))`)).toBeGreaterThan(0);
    expect(await total('gleaner_rate_limited_requests_total{job="gleaner-api"}')).toBeGreaterThan(0);
    expect(await total('gleaner_auth_failures_total{reason="unknown"}')).toBeGreaterThanOrEqual(3);
    expect(await total('gleaner_rate_limit_pauses_total{job="gleaner-embedded", domain="limited.test"}')).toBeGreaterThan(0);
    expect(await total('gleaner_crawl_page_tasks_total{outcome="rate_limited"}')).toBeGreaterThanOrEqual(HUB_HOSTS + 2);
    expect(await total('gleaner_crawl_pages_total{status="failed"}')).toBeGreaterThan(0);
    expect(await total('gleaner_webhook_deliveries_total{outcome="retrying"}')).toBeGreaterThanOrEqual(2);
    expect(await total('gleaner_llm_calls_total{outcome!="success"}')).toBeGreaterThan(0);
    expect(await total('gleaner_llm_cost_usd_total')).toBeGreaterThan(0);
    expect(await total('gleaner_field_grounding_total{model="gpt-4o-mini+invent", outcome="ungrounded"}')).toBe(1);
    expect(await total('gleaner_field_grounding_total{model="gpt-4o-mini", outcome="grounded"}')).toBeGreaterThan(0);
    // Every job is finished, and every process's last sample (scraped after the work) says so.
    const since = `${Math.ceil(nowS() - workDoneAt) + 1}s`;
    expect(await value(`max(last_over_time(gleaner_jobs{status="running"}[${since}]))`)).toBe(0);
    expect(await value(`count(last_over_time(gleaner_jobs{status="running"}[${since}]))`)).toBeGreaterThanOrEqual(5 * 4);
  });

  it('loads every alert rule, evaluates it without error, and every series it reads exists', async () => {
    const shipped = (
      parseYaml(readFileSync(join(ROOT, 'docker', 'alerts.yml'), 'utf8')) as {
        groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
      }
    ).groups.flatMap((g) => g.rules);
    // Every rule evaluated again after the work (evaluation_interval is 1 s).
    let loaded = await prom.rules();
    await waitFor(
      async () => {
        loaded = await prom.rules();
        return loaded.length > 0 && loaded.every((r) => Date.parse(r.lastEvaluation) / 1000 > workDoneAt);
      },
      30_000,
      100,
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}; work done at ${workDoneAt}, rules: ${JSON.stringify(loaded.map((r) => [r.name, r.lastEvaluation]))}`,
      );
    });
    expect(loaded.map((r) => r.name).sort()).toEqual(shipped.map((r) => r.alert).sort());
    expect(loaded.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
    const missing: string[] = [];
    for (const rule of shipped) {
      await prom.query(rule.expr);
      for (const s of selectors(rule.expr)) if ((await prom.query(`count(${s})`)).length === 0) missing.push(`${rule.alert}: ${s}`);
    }
    expect(missing).toEqual([]);
    // The failing model's error ratio is above the threshold now: the alert is pending (for: 10m).
    await waitFor(
      async () => (await prom.alerts()).some((a) => a.labels.alertname === 'GleanerLlmErrorRatioHigh' && a.labels.model === 'fail-500'),
      30_000,
      100,
    );
  });

  it('bounds label cardinality: 45 rate-limiting domains make at most 20 named domain series + other per process', async () => {
    const byInstance = async (expr: string) =>
      Object.fromEntries((await prom.query(expr)).map((s) => [s.metric.instance, Number(s.value![1])])) as Record<string, number>;
    const domainSeries = await byInstance('count by (instance) (gleaner_rate_limit_pauses_total)');
    for (const count of Object.values(domainSeries)) expect(count).toBeLessThanOrEqual(DOMAIN_LABEL_CAP + 1);
    // 45 domains paused on two crawlers that name at most 20 each: at least 5 of them went to `other`.
    expect(await prom.query('gleaner_rate_limit_pauses_total{job="gleaner-crawler", domain="other"}')).not.toHaveLength(0);
    const gleanerSeries = await byInstance('count by (instance) ({__name__=~"gleaner_.+"})');
    const allSeries = await byInstance('count by (instance) ({job=~"gleaner.*"})');
    expect(Object.keys(gleanerSeries)).toHaveLength(5);
    for (const count of Object.values(gleanerSeries)) expect(count).toBeLessThan(GLEANER_SERIES_PER_PROCESS_BOUND);
    // No label value anywhere names a host beyond the cap (the per-host detail is in the crawl map and logs).
    const hostLabels = await prom.query('count by (domain) ({__name__=~"gleaner_.+", domain=~"h[0-9]+\\\\.test"})');
    expect(hostLabels.length).toBeLessThanOrEqual(2 * DOMAIN_LABEL_CAP);
    // Every label value of every Gleaner series: no URL, key or host beyond the capped domain label, no id but an auth profile's in `profile`.
    const series = await prom.query('{__name__=~"gleaner_.+"}');
    const values = new Map<string, Set<string>>();
    for (const one of series) {
      for (const [name, value] of Object.entries(one.metric)) {
        if (name === 'instance' || name === '__name__') continue;
        if (!values.has(name)) values.set(name, new Set());
        values.get(name)!.add(value);
      }
    }
    const leaks: string[] = [];
    for (const [name, set] of values) {
      for (const value of set) {
        // `proxy` is the operator's configured proxy as scheme://host:port (docs/operations.md): an address, never its credentials.
        // `profile` is an auth profile's id (per-profile login metrics, issue 44), capped per process (the first 100,
        // then `other`; auth-metrics.spec.ts): here the one profile the work used, or `other`, and nothing else.
        if (name === 'profile') {
          if (value !== 'other' && value !== profileId) leaks.push(`${name}=${value}`);
          continue;
        }
        if (name === 'proxy' ? /@|metrics-(user|pass)/.test(value) : /:\/\/|glk_|(^|[^a-z])sk-|[0-9A-HJKMNP-TV-Z]{26}/.test(value))
          leaks.push(`${name}=${value}`);
        if (name !== 'domain' && /\.test$/.test(value)) leaks.push(`${name}=${value}`);
      }
    }
    expect(leaks).toEqual([]);
    expect(values.get('proxy')).toEqual(new Set(['http://127.0.0.1:9']));
    expect(values.get('profile')).toEqual(new Set(['other', profileId]));
    // Distinct values per label across all five processes: closed sets, and the capped ones at their caps.
    const distinct = Object.fromEntries([...values].map(([name, set]) => [name, set.size]));
    expect(distinct.domain).toBeLessThanOrEqual(3 * DOMAIN_LABEL_CAP + 1);
    expect(distinct.route).toBeLessThanOrEqual(120);
    for (const [name, count] of Object.entries(distinct)) {
      if (!['domain', 'route', 'model', 'le', 'quantile', 'status', 'outcome'].includes(name))
        expect([name, count <= 25]).toEqual([name, true]);
    }
    console.log(
      `distinct label values: ${JSON.stringify(distinct)}; series per process: gleaner_* ${JSON.stringify(gleanerSeries)}; all ${JSON.stringify(allSeries)}; domain series ${JSON.stringify(domainSeries)}`,
    );
  });

  it('gives every Gleaner metric a HELP text with its unit, a place in docs/operations.md and on a dashboard', async () => {
    const operations = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const docs = operations.slice(
      operations.indexOf('\n## Metrics\n'),
      operations.indexOf('\n## ', operations.indexOf('\n## Metrics\n') + 1),
    );
    expect(docs.length).toBeGreaterThan(100);
    const help = new Map<string, string>();
    for (const p of processes) {
      const text = (await http(p.url, 'GET', '/metrics')).text;
      for (const m of text.matchAll(/^# HELP (gleaner_[a-z0-9_]+) (.*)$/gm)) help.set(m[1], m[2]);
    }
    expect(help.size).toBeGreaterThanOrEqual(20);
    const problems: string[] = [];
    for (const [name, text] of help) {
      if (!/ Unit: [^.]+\.$/.test(text)) problems.push(`${name}: HELP does not end with "Unit: <unit>.": ${text}`);
      if (!docs.includes(`\`${name}\``)) problems.push(`${name}: not listed in docs/operations.md`);
    }
    const panelExprs = dashboards.flatMap((d) => d.panels.flatMap((p) => p.targets.map((t) => t.expr))).join('\n');
    for (const name of help.keys()) {
      if (!new RegExp(`\\b${name}(_bucket|_count|_sum)?\\b`).test(panelExprs)) problems.push(`${name}: on no dashboard panel`);
    }
    for (const m of docs.matchAll(/`(gleaner_[a-z0-9_]+)`/g)) {
      if (!help.has(m[1])) problems.push(`${m[1]}: listed in docs/operations.md but no process exports it`);
    }
    expect(problems).toEqual([]);
  });

  it('fires GleanerCrawlerDown (pending) for a crawler that stops answering scrapes', async () => {
    const port = crawler2.port;
    await crawler2.stop('SIGKILL');
    await waitFor(
      async () =>
        (await prom.alerts()).some(
          (a) => a.labels.alertname === 'GleanerCrawlerDown' && a.labels.instance === `127.0.0.1:${port}` && a.state === 'pending',
        ),
      30_000,
      100,
    );
    expect((await prom.alerts()).filter((a) => a.labels.alertname === 'GleanerNoCrawler')).toEqual([]);
  });
});
