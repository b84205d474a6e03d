/**
 * The capacity benchmark's per-feature runs (issue 37 "Budgets for what comes next"; docs/capacity.md "What each
 * feature adds per page"): `cluster_1` with one feature turned on, minimally, beside a `feature_base` run of the same
 * workload made in the same invocation (the same build), so that what each feature adds to a page's store and
 * Redis commands is counted against the targets. Their results go to bench-results/capacity-features.json, not to
 * capacity.json: these runs are made at `nice -n 19` beside other work, so their CPU is kept in the file's runs
 * but not summarised or quoted. A feature's own commands do not depend on the load; the whole run's do a little, through
 * the crawl's per-second work (summariseFeatures).
 *
 *   feature_base      cluster_1's workload, nothing more
 *   feature_dedup     `dedupe: "near"` (docs/dedup.md)
 *   feature_auth      `auth_profile`: a form login on the tests' login site (test/fixtures/login-site), the profile's hosts
 *                     the login host and the first 19 site hosts (a profile names at most 20)
 *   feature_proxies   `proxy`: a pool of two local proxies (proxy-chain, as the proxy pool's specs use)
 *   feature_lists     a list schema (`children: [{name}]`) with GLEANER_LIST_ITEMS_PER_CALL=4: a page's 10 child
 *                     links are counted and extracted in 3 chunks (pages without children have no list)
 */
import { Server as ProxyChainServer } from 'proxy-chain';
import { LOGIN_PASSWORD, LOGIN_USER, startLoginSite } from '../../fixtures/login-site/login-site';
import type { BenchContext } from '../crawl/context';
import { call } from '../crawl/gleaner';
import { clusterRun, type RunResult, type Workload } from './runs';
import { clusterSummary } from './summary';

export const FEATURE_BASE = 'feature_base';

/**
 * What each feature run turns on, as docs/capacity.md names it, and the store collections only that feature uses (its
 * own commands are counted exactly there). None of the four calls Redis (libs/dedup, libs/auth-profiles,
 * libs/fetch/src/proxy-pool and libs/extraction/src/lists have no Redis client).
 */
export const FEATURES: Record<string, { what: string; collections: string[] }> = {
  feature_dedup: { what: 'dedup (`dedupe: "near"`)', collections: ['crawl_duplicates'] },
  feature_auth: { what: 'auth profile (a form login, one session)', collections: ['auth_profiles'] },
  feature_proxies: { what: 'proxy pool (two local proxies)', collections: [] },
  feature_lists: { what: 'long lists (a list schema, 4 items a call)', collections: [] },
};

/** As summary.ts counts them; other commands (create, createIndexes: once a crawl) are in `commands` only. */
const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'bulkWrite']);
const READS = new Set(['find', 'aggregate', 'getMore', 'count', 'distinct']);

/** The most hosts an auth profile names (AuthProfileDto). */
const PROFILE_HOSTS = 20;

async function withProxies<T>(count: number, work: (urls: string[]) => Promise<T>): Promise<T> {
  const servers = Array.from({ length: count }, () => new ProxyChainServer({ port: 0, host: '127.0.0.1', verbose: false }));
  try {
    await Promise.all(servers.map((s) => s.listen()));
    return await work(servers.map((s) => `http://127.0.0.1:${s.port}`));
  } finally {
    await Promise.all(servers.map((s) => s.close(true)));
  }
}

export function featureRuns(base: Workload): Record<string, (ctx: BenchContext) => Promise<RunResult>> {
  return {
    [FEATURE_BASE]: (ctx) => clusterRun(ctx, base, 1),
    feature_dedup: (ctx) => clusterRun(ctx, { ...base, crawlOptions: { dedupe: 'near' } }, 1),
    feature_auth: async (ctx) => {
      const site = await startLoginSite();
      try {
        return await clusterRun(ctx, base, 1, async (api) => {
          const hosts = ['members.test', ...Array.from({ length: Math.min(base.hosts, PROFILE_HOSTS - 1) }, (_, i) => `h${i + 1}.test`)];
          const res = await call(api, 'POST', '/api/v1/auth-profiles', {
            name: 'Bench members',
            hosts,
            login: {
              type: 'form',
              url: site.url('members.test', '/login'),
              csrf_field: 'csrf_token',
              username: LOGIN_USER,
              password: LOGIN_PASSWORD,
            },
            check: { session_cookie: 'sid' },
          });
          if (res.status !== 201) throw new Error(`POST /auth-profiles answered ${res.status}: ${JSON.stringify(res.body)}`);
          return { auth_profile: res.body.id as string };
        });
      } finally {
        await site.close();
      }
    },
    feature_proxies: (ctx) =>
      withProxies(2, (urls) =>
        clusterRun(
          ctx,
          { ...base, env: { ...base.env, GLEANER_PROXY_POOLS: JSON.stringify({ bench: urls }) }, crawlOptions: { proxy: 'bench' } },
          1,
        ),
      ),
    feature_lists: (ctx) =>
      clusterRun(
        ctx,
        {
          ...base,
          env: { ...base.env, GLEANER_LIST_ITEMS_PER_CALL: '4' },
          schema: { name: 'string', price: 'string', children: [{ name: 'string' }] },
        },
        1,
      ),
  };
}

const ok = (run: unknown): run is RunResult => typeof run === 'object' && run !== null && 'crawl' in run;
const r = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** A run's per-page counts that do not depend on the machine's load: no CPU, no rates. */
function counts(run: RunResult) {
  const s = clusterSummary(run);
  return {
    pages: s.pages,
    failed: s.failed,
    store: {
      commands: s.store.per_page.commands,
      write_commands: s.store.per_page.write_commands,
      read_commands: s.store.per_page.read_commands,
      docs_written: s.store.per_page.docs_written,
      docs_returned: s.store.per_page.docs_returned,
      write_request_bytes: s.store.per_page.write_request_bytes,
    },
    store_by_command_and_collection: s.store.by_command_and_collection,
    redis: s.redis ? { commands: s.redis.per_page.commands, script_calls: s.redis.per_page.script_calls } : null,
    redis_top_commands_per_page: s.redis?.top_commands_per_page ?? null,
    model_calls: s.model.calls,
  };
}

type Counts = ReturnType<typeof counts>;

/** The commands of the feature's own collections in the crawl phase, per page (exact: no other part uses them). */
function own(run: RunResult, collections: string[]) {
  const total = { commands: 0, write_commands: 0, read_commands: 0, docs_written: 0, docs_returned: 0, write_request_bytes: 0 };
  const by: Record<string, number> = {};
  for (const [key, c] of Object.entries(run.crawl.mongo ?? {})) {
    const [command, collection = ''] = key.split(' ');
    if (!collections.includes(collection)) continue;
    total.commands += c.n;
    if (WRITES.has(command)) {
      total.write_commands += c.n;
      total.docs_written += c.docs_written;
      total.write_request_bytes += c.request_bytes;
    } else if (READS.has(command)) {
      total.read_commands += c.n;
      total.docs_returned += c.docs_returned;
    }
    by[key] = r(c.n / run.job.pages, 3);
  }
  const pages = run.job.pages;
  return {
    collections,
    commands: r(total.commands / pages),
    write_commands: r(total.write_commands / pages),
    read_commands: r(total.read_commands / pages),
    docs_written: r(total.docs_written / pages),
    docs_returned: r(total.docs_returned / pages),
    write_request_bytes: Math.round(total.write_request_bytes / pages),
    by_command: by,
  };
}

/** What the feature adds per page to the base run's counts (the store's commands by command and collection included). */
function delta(feature: Counts, base: Counts) {
  const d = (a: number, b: number) => r(a - b);
  /** The changes of a per-page breakdown, the largest first (changes under 0.005 a page left out). */
  const changes = (a: Record<string, number>, b: Record<string, number>) => {
    const out: Array<[string, number]> = [];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const change = r((a[key] ?? 0) - (b[key] ?? 0), 3);
      if (Math.abs(change) >= 0.005) out.push([key, change]);
    }
    return Object.fromEntries(out.sort((x, y) => Math.abs(y[1]) - Math.abs(x[1])));
  };
  const storeCommands = (c: Counts) =>
    Object.fromEntries(Object.entries(c.store_by_command_and_collection).map(([key, v]) => [key, v.commands]));
  return {
    store: {
      commands: d(feature.store.commands, base.store.commands),
      write_commands: d(feature.store.write_commands, base.store.write_commands),
      read_commands: d(feature.store.read_commands, base.store.read_commands),
      docs_written: d(feature.store.docs_written, base.store.docs_written),
      docs_returned: d(feature.store.docs_returned, base.store.docs_returned),
      write_request_bytes: Math.round(feature.store.write_request_bytes - base.store.write_request_bytes),
    },
    store_commands_by_command_and_collection: changes(storeCommands(feature), storeCommands(base)),
    redis_commands: feature.redis && base.redis ? d(feature.redis.commands, base.redis.commands) : null,
    /** Of the 15 commands each run called most (the summary's list). */
    redis_commands_by_name: changes(feature.redis_top_commands_per_page ?? {}, base.redis_top_commands_per_page ?? {}),
    model_calls: r(feature.model_calls - base.model_calls, 3),
  };
}

/**
 * The features file's summary: each run's counts per page and, for each feature run made with a base run, what the
 * feature adds per page: `own_per_page`, the commands of the collections only it uses, counted exactly; and
 * `run_delta_per_page`, the whole run's counts less the base run's. The second also moves with the crawl's duration:
 * a crawl does some work per second (the client's poll of the job, leases, progress, schedulers, Redis queue polls), so
 * a run slowed by the load or by the feature's CPU shows more of it per page; `crawl_seconds` says by how much.
 */
export function summariseFeatures(runs: Record<string, unknown>): Record<string, unknown> {
  const base = runs[FEATURE_BASE];
  if (!ok(base)) return {};
  const baseCounts = counts(base);
  const features: Record<string, unknown> = {};
  for (const [name, feature] of Object.entries(FEATURES)) {
    const run = runs[name];
    if (!ok(run)) continue;
    const c = counts(run);
    features[name] = {
      what: feature.what,
      date: (run as { date?: string }).date,
      crawl_seconds: run.crawl.seconds,
      per_page: c,
      own_per_page: own(run, feature.collections),
      run_delta_per_page: delta(c, baseCounts),
    };
  }
  return { base_date: (base as { date?: string }).date, base_crawl_seconds: base.crawl.seconds, base: baseCounts, features };
}
