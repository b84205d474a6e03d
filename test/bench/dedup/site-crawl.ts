/**
 * bench:dedup's crawl of a generated site (docs/dedup.md "Measured"): `BENCH_DEDUP_PRODUCTS` templated product pages
 * and `BENCH_DEDUP_ARTICLES` articles, and 30 % of all addresses duplicates of them (test/fixtures/dup-site.ts
 * generatedAddresses: tracking and sort parameters, print views, AMP pages with rel=canonical, the www. twin, changed
 * timestamps), reached through hub pages. The built app (embedded) crawls it with the defaults (`dedupe: off`) and with
 * `canonicalize: strict` + `dedupe: near`, alternately (`BENCH_DEDUP_REPEATS` each), against the stand-in model server:
 * model calls made and saved, false merges (a product taken for another's copy), duplicates missed, addresses per second
 * of each (the peer is the `off` run of the same minute). Then one `near` run with SQLite statements counted
 * (test/bench/crawl/count-sqlite.cjs): the index's store statements and bytes per fetched page.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { dupSitePage, generatedAddresses } from '../../fixtures/dup-site';
import { assertBuilt, baseEnv, call, llmConfig, startCrawl, startEmbeddedApp, waitJob } from '../crawl/gleaner';
import { median, round } from '../crawl/procs';

const COUNTER = join(__dirname, '..', 'crawl', 'count-sqlite.cjs');
const HOST = 'dupbench.test';
const PER_HUB = 50;

interface SiteServer {
  port: number;
  close(): Promise<void>;
}

/** The generated site on 127.0.0.1: `/` links to the hubs, each hub to 50 addresses, the rest is dup-site.ts. */
async function startSite(addresses: ReturnType<typeof generatedAddresses>): Promise<SiteServer> {
  let port = 0;
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const url = new URL(req.url ?? '/', `http://${HOST}`);
    const origin = { bare: `http://${HOST}:${port}`, www: `http://www.${HOST}:${port}` };
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
      res.end(body);
    };
    const href = (a: (typeof addresses)[number]) => `${a.www ? origin.www : origin.bare}${a.path}`;
    if (host === HOST && url.pathname === '/') {
      const hubs = Math.ceil(addresses.length / PER_HUB);
      return send(
        200,
        `<html><body><h1>Site</h1>${Array.from({ length: hubs }, (_, k) => `<a href="/hub/${k}">hub ${k}</a>`).join(' ')}</body></html>`,
      );
    }
    const hub = /^\/hub\/(\d+)$/.exec(url.pathname);
    if (host === HOST && hub) {
      const from = Number(hub[1]) * PER_HUB;
      const links = addresses.slice(from, from + PER_HUB).map((a) => `<li><a href="${href(a)}">${a.path}</a></li>`);
      return send(200, `<html><body><h1>Hub ${hub[1]}</h1><ul>${links.join('')}</ul></body></html>`);
    }
    const answer = dupSitePage(url.pathname, url.searchParams, origin, host === `www.${HOST}`);
    if (answer) return send(answer.status, answer.body, answer.headers);
    send(404, '<p>not here</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface MapEntry {
  url: string;
  status: string;
  error_category: string | null;
  duplicate_of: string | null;
  duplicate_reason: string | null;
}

interface RunResult {
  mode: 'off' | 'near';
  seconds: number;
  addresses: number;
  fetched: number;
  completed: number;
  addresses_per_s: number;
  model_calls: number;
  model_calls_saved: number;
  duplicates: Record<string, number>;
  false_merges: number;
  missed: Record<string, number>;
  found_before_fetch: number;
  found_reversed: number;
  entries: MapEntry[];
}

async function crawlOnce(
  mode: 'off' | 'near',
  site: SiteServer,
  models: ModelServer,
  addresses: ReturnType<typeof generatedAddresses>,
  instrument: { nodeArgs?: string[]; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const app = await startEmbeddedApp(baseEnv('*.test=127.0.0.1', instrument.env ?? {}), instrument.nodeArgs);
  try {
    const before = models.requests.length;
    const options = mode === 'near' ? { canonicalize: 'strict', dedupe: 'near' } : { canonicalize: 'default', dedupe: 'off' };
    const id = await startCrawl(app.url, {
      url: `http://${HOST}:${site.port}/`,
      llm_config: llmConfig(models.openaiBaseUrl),
      options: { max_depth: 2, max_pages: 5000, concurrency: 8, respect_robots: false, archive: false, ...options },
    });
    const job = await waitJob(app.url, id, { everyMs: 250 });
    if (job.status !== 'completed') throw new Error(`the ${mode} crawl ended ${job.status}: ${job.error_message}`);
    const full = (await call(app.url, 'GET', `/api/v1/jobs/${id}`)).body as {
      duplicates?: Record<string, number>;
      model_calls_saved?: number;
    };
    const entries = ((await call(app.url, 'GET', `/api/v1/jobs/${id}/crawl-map`)).body as { entries: MapEntry[] }).entries;
    const seconds = (Date.parse(job.completed_at!) - Date.parse(job.started_at!)) / 1000;
    const fetched = entries.filter((e) => e.status === 'completed' || e.status === 'failed' || e.error_category === 'duplicate').length;
    const path = (url: string) => new URL(url).pathname;
    // A false merge: a page taken for a copy of a page whose record is another (a product for another product).
    const recordOf = (url: string) => path(url).replace(/\/(print|amp|updated)$/, '');
    const falseMerges = entries.filter((e) => e.duplicate_of !== null && recordOf(e.url) !== recordOf(e.duplicate_of)).length;
    // Missed: a generated duplicate extracted as a page of its own (by kind); found before the fetch: strict rules made it
    // its original's address (tracking parameters), so it was never fetched.
    const byUrl = new Map(entries.map((e) => [e.url, e]));
    const missed: Record<string, number> = {};
    let foundBeforeFetch = 0;
    // Found the other way round: the crawl fetched the copy first, kept it as the original and recorded the generated
    // original as its duplicate (which of two copies is met first is the crawl's order, not a miss).
    let foundReversed = 0;
    for (const a of addresses) {
      if (!a.kind) continue;
      const url = `http://${a.www ? 'www.' : ''}${HOST}:${site.port}${a.path}`;
      const entry = byUrl.get(url) ?? [...byUrl.values()].find((e) => decodeURI(e.url) === url);
      if (!entry) foundBeforeFetch++;
      else if (entry.error_category === 'duplicate') continue;
      else if (a.of !== null && byUrl.get(`http://${HOST}:${site.port}${a.of}`)?.duplicate_of === entry.url) foundReversed++;
      else missed[a.kind] = (missed[a.kind] ?? 0) + 1;
    }
    return {
      mode,
      seconds,
      addresses: entries.length,
      fetched,
      completed: job.page_count,
      addresses_per_s: round(fetched / seconds, 1),
      model_calls: models.requests.length - before,
      model_calls_saved: full.model_calls_saved ?? 0,
      duplicates: full.duplicates ?? {},
      false_merges: falseMerges,
      missed,
      found_before_fetch: foundBeforeFetch,
      found_reversed: foundReversed,
      entries,
    };
  } finally {
    await app.close();
  }
}

export async function siteCrawl(log: (line: string) => void): Promise<Record<string, unknown>> {
  assertBuilt();
  const products = Number(process.env.BENCH_DEDUP_PRODUCTS ?? 400);
  const articles = Number(process.env.BENCH_DEDUP_ARTICLES ?? 120);
  const repeats = Number(process.env.BENCH_DEDUP_REPEATS ?? 2);
  const addresses = generatedAddresses(products, articles);
  const duplicates = addresses.filter((a) => a.kind).length;
  const [site, models] = await Promise.all([startSite(addresses), startModelServer()]);
  try {
    const runs: RunResult[] = [];
    for (let r = 0; r < repeats; r++)
      for (const mode of r % 2 === 0 ? (['off', 'near'] as const) : (['near', 'off'] as const)) {
        log(`site crawl: ${mode} run ${r + 1}/${repeats}`);
        const run = await crawlOnce(mode, site, models, addresses);
        const failed = run.entries.filter((e) => e.status === 'failed').map((e) => e.error_category);
        log(`  ${run.fetched} addresses fetched in ${run.seconds} s, ${run.model_calls} model calls, failed: ${JSON.stringify(failed)}`);
        runs.push(run);
      }
    log('site crawl: near run with SQLite statements counted');
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-bench-dedup-'));
    let counted: RunResult;
    let statements: Record<string, { n: number; ms: number; bytes_in: number; bytes_out: number }>;
    try {
      const file = join(dir, 'counts.json');
      counted = await crawlOnce('near', site, models, addresses, {
        nodeArgs: ['--require', COUNTER],
        env: { BENCH_SQL_COUNTS_FILE: file },
      });
      statements = (JSON.parse(readFileSync(file, 'utf8')) as { statements: typeof statements }).statements;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const index = Object.entries(statements).filter(([kind]) => kind.endsWith(' crawl_duplicates'));
    const perPage = (n: number) => round(n / counted.fetched, 2);
    const sum = (list: typeof index, f: (s: (typeof statements)[string]) => number) => list.reduce((a, [, s]) => a + f(s), 0);
    const all = Object.entries(statements);
    const summary = (mode: 'off' | 'near') => {
      const of = runs.filter((r) => r.mode === mode);
      const last = of[of.length - 1];
      return {
        runs: of.length,
        addresses_fetched: last.fetched,
        pages_extracted: last.completed,
        seconds: of.map((r) => r.seconds),
        addresses_per_s: of.map((r) => r.addresses_per_s),
        median_addresses_per_s: median(of.map((r) => r.addresses_per_s)),
        median_seconds: median(of.map((r) => r.seconds)),
        model_calls: last.model_calls,
        model_calls_saved: last.model_calls_saved,
        duplicates_by_reason: last.duplicates,
        duplicates_found_before_fetch: last.found_before_fetch,
        duplicates_found_reversed: last.found_reversed,
        false_merges: Math.max(...of.map((r) => r.false_merges)),
        missed_duplicates_by_kind: last.missed,
      };
    };
    const off = summary('off');
    const near = summary('near');
    const missed = Object.values(near.missed_duplicates_by_kind).reduce((a, n) => a + n, 0);
    return {
      site: {
        products,
        articles,
        addresses: addresses.length + Math.ceil(addresses.length / PER_HUB) + 1,
        generated_duplicates: duplicates,
        duplicate_share: round(duplicates / (addresses.length + Math.ceil(addresses.length / PER_HUB) + 1), 3),
      },
      options: {
        max_depth: 2,
        concurrency: 8,
        archive: false,
        off: 'canonicalize default, dedupe off',
        near: 'canonicalize strict, dedupe near',
      },
      off,
      near,
      detection_rate: round((duplicates - missed) / duplicates, 4),
      model_calls_saved_share: round(1 - near.model_calls / off.model_calls, 3),
      // Addresses per second: near against the off runs of the same minutes (its peer). Fewer model calls make near faster
      // with a fast stand-in model; this is an upper bound of the check's cost, not a speed-up claim.
      speed_ratio_near_to_off: round(near.median_addresses_per_s / off.median_addresses_per_s, 3),
      // The "crawl speed with and without": the time to crawl the whole site, off's median over near's (1: as fast).
      // Addresses per second undercounts near, which never fetches the addresses strict rules resolve before the fetch.
      site_speed_ratio_near_to_off: round(off.median_seconds / near.median_seconds, 3),
      index_store_cost: {
        measured_on: `the near run with SQLite statements counted (${counted.fetched} addresses fetched)`,
        statements_per_fetched_page: perPage(sum(index, (s) => s.n)),
        writes_per_fetched_page: perPage(
          sum(
            index.filter(([k]) => /^(INSERT|UPDATE|DELETE)/.test(k)),
            (s) => s.n,
          ),
        ),
        reads_per_fetched_page: perPage(
          sum(
            index.filter(([k]) => /^SELECT/.test(k)),
            (s) => s.n,
          ),
        ),
        bytes_written_per_fetched_page: perPage(sum(index, (s) => s.bytes_in)),
        share_of_all_statements: round(sum(index, (s) => s.n) / sum(all, (s) => s.n), 3),
        all_statements_per_fetched_page: perPage(sum(all, (s) => s.n)),
        by_statement: Object.fromEntries(index.map(([k, s]) => [k, perPage(s.n)])),
        redis:
          'none: the index is in the document store (docs/dedup.md "Where the index lives"); on a cluster the same statements are MongoDB commands',
      },
    };
  } finally {
    await Promise.all([site.close(), models.close()]);
  }
}
