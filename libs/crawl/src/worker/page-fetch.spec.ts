import { Counter, Registry } from 'prom-client';
import type { AppConfig } from '@app/config';
import { AppError } from '@app/core';
import type { ModelPagePlan } from '@app/extraction';
import { RedirectStopped, type FetchResult } from '@app/fetch';
import type { JobRecord } from '@app/jobs';
import type { LoadedPage, PageLoaderService } from '@app/pages';
import { MemoryPoliteness } from '@app/politeness';
import { DEFAULT_OPTIONS } from '../../../../test/support/crawl-owner';
import { CrawlScope } from '../crawl-scope';
import { crawlPageControl, type CrawlJobInput } from '../crawl-input';
import type { CrawlOptions } from '@app/sites';
import type { PageTaskPayload } from '../crawl.types';
import { canonicalize } from '../url-canon';
import type { ArchivedPages } from './archived-pages';
import { DomainLabels } from './domain-labels';
import type { MonitorNote } from './monitor-note';
import { PageFetch, type FetchContext, type FetchedPage } from './page-fetch';

/** A promise the test opens. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const config = { hostMinIntervalMs: 0, hostMaxConcurrency: 4, hostSlotLeaseMs: 60_000 } as AppConfig;
type Load = PageLoaderService['load'];

function fetched(url: string, status = 200): FetchResult {
  return { url, status, mode: 'static', durationMs: 3, contentType: 'text/html', html: '<p>x</p>', headers: {} } as unknown as FetchResult;
}

function page(url: string): LoadedPage {
  return {
    fetch: fetched(url),
    content: { markdown: 'x', links: [] },
    fetchedAt: '2026-11-26T00:00:00.000Z',
    fetchDurationMs: 3,
  } as unknown as LoadedPage;
}

/** A fetch stage over the in-process politeness, a loader the test scripts, and a store that knows `known` URLs. */
function stage(load: Load, options: Partial<CrawlOptions> = {}, known: Record<string, string> = {}) {
  const politeness = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
  const kept: string[] = [];
  let before: () => Promise<void> = async () => undefined;
  const archived = {
    keep: async (_job: JobRecord, _key: string, url: string) => {
      await before();
      kept.push(url);
    },
  } as unknown as ArchivedPages;
  const keepWith = (wait: () => Promise<void>) => void (before = wait);
  const pauses = new Counter({ name: 'pauses_total', help: 'h', labelNames: ['domain'], registers: [new Registry()] });
  const repository = {
    entries: {
      entry: async (id: string) => (known[id] ? ({ status: known[id], key: id.slice(3), url: `entry of ${id.slice(3)}` } as never) : null),
    },
  };
  const fetch = new PageFetch(politeness, config, { load } as PageLoaderService, repository, archived, pauses, new DomainLabels(20));
  const resolved = { ...DEFAULT_OPTIONS, ...options };
  const seed = canonicalize('http://shop.test/')!;
  const context: FetchContext = {
    job: { _id: 'J1', user_id: 'u1' } as JobRecord,
    input: { url: seed.url, options: resolved, page_formats: null } as unknown as CrawlJobInput,
    scope: new CrawlScope(seed, resolved),
    plan: { kind: 'model' } as ModelPagePlan,
  };
  const task = (path: string): PageTaskPayload =>
    ({ job_id: 'J1', key: canonicalize(`http://shop.test${path}`)!.key, url: `http://shop.test${path}`, extract: true }) as PageTaskPayload;
  return { fetch, context, task, kept, keepWith, politeness, pauses };
}

describe('PageFetch (a page task fetch stage)', () => {
  it('loads the page under the host slot and keeps it in the archive when the crawl keeps pages', async () => {
    const s = stage(async (url) => page(url), { archive: true });
    const got = await s.fetch.fetch(s.task('/a'), s.context, new AbortController().signal, null, {});
    expect('kind' in got).toBe(false);
    await (got as FetchedPage).kept;
    expect(s.kept).toEqual(['http://shop.test/a']);
    const off = stage(async (url) => page(url), { archive: false });
    const plain = await off.fetch.fetch(off.task('/a'), off.context, new AbortController().signal, null, {});
    expect((plain as FetchedPage).kept).toBeUndefined();
    expect(off.kept).toEqual([]);
  });

  it('hands the page on while its archiving runs: the caller awaits `kept` before reporting', async () => {
    const s = stage(async (url) => page(url), { archive: true });
    const archiving = gate();
    s.keepWith(() => archiving.wait);
    const got = (await s.fetch.fetch(s.task('/slow'), s.context, new AbortController().signal, null, {})) as FetchedPage;
    let done = false;
    void got.kept!.then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    archiving.open();
    await got.kept;
    expect(s.kept).toEqual(['http://shop.test/slow']);
  });

  it('a 429 pauses the host for every worker and reports rate_limited', async () => {
    const s = stage(async (url) => {
      throw new AppError('upstream-failure', 'too many', {
        category: 'rate_limit',
        retryAfterSeconds: 30,
        extensions: { status: 429, url },
      });
    });
    const got = await s.fetch.fetch(s.task('/b'), s.context, new AbortController().signal, null, {});
    expect(got).toMatchObject({ kind: 'rate_limited', http_status: 429, retry_after_ms: 30_000 });
    expect((await s.pauses.get()).values.reduce((sum, v) => sum + v.value, 0)).toBe(1);
    const again = await s.politeness.acquire('shop.test', { intervalMs: 0, maxInFlight: 4, leaseMs: 1000 });
    expect(again.granted).toBe(false);
  });

  it('a redirect off the crawl domain is skipped as filtered, one to a URL the crawl fetches itself as duplicate', async () => {
    const off = stage(async () => {
      throw new RedirectStopped('off the domain', 'http://other.test/x');
    });
    expect(await off.fetch.fetch(off.task('/c'), off.context, new AbortController().signal, null, {})).toMatchObject({
      kind: 'skipped',
      reason: 'filtered',
      final_url: 'http://other.test/x',
    });
    const target = canonicalize('http://shop.test/known')!.key;
    const dup = stage(
      async (url, _mode, options) => {
        await options?.beforeConvert?.(fetched('http://shop.test/known'));
        return page(url);
      },
      {},
      { [`J1:${target}`]: 'completed' },
    );
    expect(await dup.fetch.fetch(dup.task('/d'), dup.context, new AbortController().signal, null, {})).toMatchObject({
      kind: 'skipped',
      reason: 'duplicate',
      // The crawl map names the page it redirected to (docs/dedup.md).
      duplicate: { duplicate_of: `entry of ${target}`, duplicate_key: target, duplicate_reason: 'redirect', similarity: null },
    });
    // A redirect refused before it is followed names it too.
    const refused = stage(
      async () => {
        throw new RedirectStopped('which this crawl fetches on its own', 'http://shop.test/known');
      },
      {},
      { [`J1:${target}`]: 'running' },
    );
    expect(await refused.fetch.fetch(refused.task('/e'), refused.context, new AbortController().signal, null, {})).toMatchObject({
      kind: 'skipped',
      reason: 'duplicate',
      final_url: 'http://shop.test/known',
      duplicate: { duplicate_of: `entry of ${target}`, duplicate_reason: 'redirect' },
    });
    // Off the domain: no original to name.
    expect(await off.fetch.fetch(off.task('/f'), off.context, new AbortController().signal, null, {})).not.toHaveProperty('duplicate');
  });

  it("a redirect onto the auth profile's logout URL is skipped logout_link, whatever the crawl's own verdict on it", async () => {
    const target = canonicalize('http://shop.test/logout')!.key;
    const s = stage(
      async () => {
        throw new RedirectStopped("a logout link of the auth profile's site", 'http://shop.test/logout', 'logout_link');
      },
      {},
      { [`J1:${target}`]: 'completed' },
    );
    expect(await s.fetch.fetch(s.task('/leave'), s.context, new AbortController().signal, null, {})).toEqual({
      kind: 'skipped',
      reason: 'logout_link',
      why: "redirected to http://shop.test/logout, a logout link of the auth profile's site",
      final_url: 'http://shop.test/logout',
    });
  });

  it("a monitor's conditional request answered 304 keeps last run's record and links, with no body", async () => {
    const sent: Array<Record<string, string> | undefined> = [];
    const s = stage(async (url, _mode, options) => {
      sent.push(options?.headers);
      await options?.beforeConvert?.({ ...fetched(url, 304), headers: { etag: '"v2"' } });
      return page(url);
    });
    const note: MonitorNote = {
      memory: {
        etag: '"v1"',
        lastModified: null,
        textHash: 'h1',
        links: ['http://shop.test/z'],
        data: { price: 1 },
        fetchedAt: '2026-11-25T00:00:00.000Z',
      },
      via: null,
      etag: null,
      lastModified: null,
      textHash: null,
    };
    const got = await s.fetch.fetch(s.task('/e'), s.context, new AbortController().signal, note, {});
    expect(sent[0]).toMatchObject({ 'If-None-Match': '"v1"' });
    expect(got).toMatchObject({ kind: 'completed', http_status: 304, links: ['http://shop.test/z'] });
    expect(note).toMatchObject({ via: 'not_modified', etag: '"v2"', textHash: 'h1' });
  });

  it("sends a crawl's headers and cookies to its seed host only, a batch's to each listed URL's host", () => {
    const secrets = { fetch_headers: JSON.stringify({ 'X-Key': 'k' }), fetch_cookies: JSON.stringify({ s: '1' }) };
    const options = { ...DEFAULT_OPTIONS, user_agent: 'UA/1', wait_for: null };
    const crawl = crawlPageControl({ url: 'http://shop.test:8080/', options } as unknown as CrawlJobInput, secrets, 'u1');
    expect(crawl).toEqual({ scoped: { headers: { 'X-Key': 'k' }, cookies: { s: '1' }, host: 'shop.test:8080' }, userAgent: 'UA/1' });
    const batch = crawlPageControl({ url: 'http://a.test/', options, source: { kind: 'list' } } as unknown as CrawlJobInput, secrets, 'u1');
    expect(batch.scoped).toEqual({ headers: { 'X-Key': 'k' }, cookies: { s: '1' } });
    expect(crawlPageControl({ url: 'http://a.test/', options: DEFAULT_OPTIONS } as unknown as CrawlJobInput, {}, 'u1')).toEqual({});
    const withProfile = crawlPageControl(
      { url: 'http://a.test/', options: { ...DEFAULT_OPTIONS, auth_profile: 'p1' } } as unknown as CrawlJobInput,
      {},
      'u1',
    );
    expect(withProfile).toEqual({ authProfile: { id: 'p1', owner: 'u1' } });
  });
});
