import { AppError, Usage } from '@app/core';
import type { LoadedPage } from '@app/pages';
import { MemoryPoliteness } from '@app/politeness';
import { PageFailure, type ExtractionMade, type PageExtraction } from '../page/page-extraction';
import { nextPageUrl, PageFollower, type FollowerDeps } from './page-follower';

const CONFIG = { hostMinIntervalMs: 0, hostMaxConcurrency: 2, hostSlotLeaseMs: 30_000, crawlDelayMaxMs: 120_000 };

/** A site of pages: each one's next links (what the selector picked). */
function site(links: Record<string, string[]>) {
  const loaded: string[] = [];
  const load = (url: string): Promise<LoadedPage> => {
    loaded.push(url);
    if (!(url in links)) return Promise.reject(new AppError('upstream-failure', `HTTP 404 at ${url}`, { category: 'http_error' }));
    return Promise.resolve({
      fetch: { url },
      content: { nextLinks: links[url].map((u) => ({ url: u, text: 'next' })) },
    } as unknown as LoadedPage);
  };
  return { load, loaded };
}

function extraction(url: string, costUsd = 0): PageExtraction<ExtractionMade> {
  return { data: { items: [{ name: url }] }, made: { method: 'model' }, model: null, usage: { ...Usage.NONE, costUsd } };
}

function follower(
  load: FollowerDeps['load'],
  robots: Partial<NonNullable<FollowerDeps['robots']>> = {},
  politeness = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 }),
) {
  return new PageFollower({
    politeness,
    robots: {
      check: robots.check ?? (() => Promise.resolve({ verdict: 'allowed', why: 'robots.txt allows it' })),
      crawlDelaySeconds: robots.crawlDelaySeconds ?? (() => Promise.resolve(undefined)),
    },
    config: CONFIG,
    load,
    extract: (page) => Promise.resolve(extraction(page.fetch.url, 0.01)),
    signal: new AbortController().signal,
  });
}

const A = 'http://shop.test/list?page=1';
const B = 'http://shop.test/list?page=2';
const C = 'http://shop.test/list?page=3';

describe('nextPageUrl', () => {
  const page = (links: string[]) =>
    ({ fetch: { url: A }, content: { nextLinks: links.map((url) => ({ url, text: '' })) } }) as unknown as LoadedPage;
  it('takes the first http(s) link on the page host not read yet, without its fragment', () => {
    expect(nextPageUrl(page(['mailto:x@shop.test', 'http://elsewhere.test/p2', `${A}#top`, `${B}#items`]), new Set([A]))).toBe(B);
  });
  it('is null when the selector picked nothing usable', () => {
    expect(nextPageUrl(page([]), new Set())).toBeNull();
    expect(nextPageUrl(page([A]), new Set([A]))).toBeNull();
  });
});

describe('PageFollower', () => {
  it('reads the next pages until one has no next link, each extracted in order', async () => {
    const { load, loaded } = site({ [A]: [B], [B]: [C], [C]: [] });
    const f = follower(load);
    const first = await f.fetch(A);
    const { pages, stopped } = await f.follow({ url: A, page: first, extraction: extraction(A) }, { selector: 'a', max_pages: 10 }, null);
    expect(pages.map((p) => p.url)).toEqual([A, B, C]);
    expect(loaded).toEqual([A, B, C]);
    expect(stopped).toEqual({ reason: 'no_next_link' });
  });

  it('stops at max_pages and names the next page it did not read', async () => {
    const { load, loaded } = site({ [A]: [B], [B]: [C], [C]: [] });
    const f = follower(load);
    const { pages, stopped } = await f.follow(
      { url: A, page: await f.fetch(A), extraction: extraction(A) },
      { selector: 'a', max_pages: 2 },
      null,
    );
    expect(pages.map((p) => p.url)).toEqual([A, B]);
    expect(loaded).not.toContain(C);
    expect(stopped).toEqual({ reason: 'max_pages', next: C });
  });

  it('does not go back to a page it read (a last page linking to the first)', async () => {
    const { load } = site({ [A]: [B], [B]: [A] });
    const f = follower(load);
    const { pages, stopped } = await f.follow(
      { url: A, page: await f.fetch(A), extraction: extraction(A) },
      { selector: 'a', max_pages: 10 },
      null,
    );
    expect(pages.map((p) => p.url)).toEqual([A, B]);
    expect(stopped.reason).toBe('no_next_link');
  });

  it('never fetches a page robots.txt disallows: the first is robots_disallowed, a later one stops the pages', async () => {
    const { load, loaded } = site({ [A]: [B], [B]: [] });
    const check = (url: string) =>
      Promise.resolve(
        url === B
          ? { verdict: 'disallowed' as const, why: 'robots.txt disallows it for GleanerBot' }
          : { verdict: 'allowed' as const, why: '' },
      );
    const f = follower(load, { check });
    const { pages, stopped } = await f.follow(
      { url: A, page: await f.fetch(A), extraction: extraction(A) },
      { selector: 'a', max_pages: 5 },
      null,
    );
    expect(pages).toHaveLength(1);
    expect(stopped).toEqual({ reason: 'refused', next: B, why: expect.stringContaining('robots.txt disallows it') });
    expect(loaded).toEqual([A]);
    await expect(follower(load, { check }).fetch(B)).rejects.toMatchObject({ category: 'robots_disallowed' });
    expect(loaded).toEqual([A]);
  });

  it('reads no robots.txt for a job that does not respect it (a crawl with respect_robots: false), and spaces by its delay_ms', async () => {
    const politeness = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    const intervals: number[] = [];
    const acquire = politeness.acquire.bind(politeness);
    politeness.acquire = (host, policy) => {
      intervals.push(policy.intervalMs);
      return acquire(host, policy);
    };
    const { load, loaded } = site({ [A]: [B], [B]: [] });
    const f = new PageFollower({
      politeness,
      robots: null,
      config: CONFIG,
      delayMs: 60_000,
      load,
      extract: (page) => Promise.resolve(extraction(page.fetch.url, 0.01)),
      signal: new AbortController().signal,
    });
    await f.fetch(A);
    expect(loaded).toEqual([A]);
    // The crawl's own delay_ms is the spacing the page's slot asked for.
    expect(intervals).toEqual([60_000]);
  });

  it("stops on a robots.txt that cannot be read for now (a crawl's page would wait for it)", async () => {
    const { load, loaded } = site({ [A]: [B], [B]: [] });
    const check = (url: string) =>
      Promise.resolve(
        url === B ? { verdict: 'unavailable' as const, why: 'robots.txt answered 503' } : { verdict: 'allowed' as const, why: '' },
      );
    const f = follower(load, { check });
    const { stopped } = await f.follow(
      { url: A, page: await f.fetch(A), extraction: extraction(A) },
      { selector: 'a', max_pages: 5 },
      null,
    );
    expect(stopped).toEqual({ reason: 'refused', next: B, why: expect.stringContaining('robots.txt answered 503') });
    expect(loaded).toEqual([A]);
  });

  it("applies the host's Crawl-delay to the politeness port for every job, and refuses a host whose delay is over the maximum", async () => {
    const politeness = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    const { load } = site({ [A]: [] });
    await follower(load, { crawlDelaySeconds: () => Promise.resolve(60) }, politeness).fetch(A);
    // The next request to the host, by anyone, waits for the Crawl-delay after this one.
    await expect(politeness.acquire('shop.test', { intervalMs: 0, maxInFlight: 2, leaseMs: 1000 })).resolves.toMatchObject({
      granted: false,
      reason: 'interval',
    });
    const slow = follower(load, { crawlDelaySeconds: () => Promise.resolve(600) });
    await expect(slow.fetch(A)).rejects.toMatchObject({
      category: 'robots_disallowed',
      detail: expect.stringContaining('Crawl-delay of 600 s'),
    });
  });

  it('stops at a page that fails to load or to extract, keeping the pages before it and what a failed extraction cost', async () => {
    const { load } = site({ [A]: [B], [B]: [C] });
    const f = follower(load);
    const { pages, stopped } = await f.follow(
      { url: A, page: await f.fetch(A), extraction: extraction(A) },
      { selector: 'a', max_pages: 5 },
      null,
    );
    expect(pages.map((p) => p.url)).toEqual([A, B]);
    expect(stopped).toMatchObject({ reason: 'failed', next: C, why: expect.stringContaining('404') });

    const failing = new PageFollower({
      politeness: new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 }),
      robots: { check: () => Promise.resolve({ verdict: 'allowed', why: '' }), crawlDelaySeconds: () => Promise.resolve(undefined) },
      config: CONFIG,
      load,
      extract: () =>
        Promise.resolve(
          new PageFailure(
            'model',
            new AppError('upstream-failure', 'the model failed', { category: 'llm_provider_error' }),
            { ...Usage.NONE, costUsd: 0.5 },
            [],
            null,
          ),
        ),
      signal: new AbortController().signal,
    });
    const out = await failing.follow(
      { url: A, page: await failing.fetch(A), extraction: extraction(A, 0.25) },
      { selector: 'a', max_pages: 5 },
      null,
    );
    expect(out.stopped).toEqual({ reason: 'failed', next: B, why: 'the model failed' });
    expect(out.pages[0].extraction.usage.costUsd).toBeCloseTo(0.75);
  });

  it('stops when the pages read cost the cap', async () => {
    const { load, loaded } = site({ [A]: [B], [B]: [C], [C]: [] });
    const f = follower(load);
    const { pages, stopped } = await f.follow(
      { url: A, page: await f.fetch(A), extraction: extraction(A, 0.01) },
      { selector: 'a', max_pages: 5 },
      0.02,
    );
    expect(pages.map((p) => p.url)).toEqual([A, B]);
    expect(stopped).toMatchObject({ reason: 'budget', next: C });
    expect(loaded).not.toContain(C);
  });

  it("a 429 pauses the host for every job, as a crawl page's does, and ends the pages there", async () => {
    const politeness = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    const load = (url: string): Promise<LoadedPage> =>
      url === B
        ? Promise.reject(
            new AppError('upstream-failure', 'The site answered HTTP 429.', { category: 'rate_limit', retryAfterSeconds: 120 }),
          )
        : site({ [A]: [B] }).load(url);
    const f = follower(load, {}, politeness);
    const { stopped } = await f.follow(
      { url: A, page: await f.fetch(A), extraction: extraction(A) },
      { selector: 'a', max_pages: 5 },
      null,
    );
    expect(stopped).toEqual({ reason: 'failed', next: B, why: 'The site answered HTTP 429.' });
    await expect(politeness.acquire('shop.test', { intervalMs: 0, maxInFlight: 2, leaseMs: 1000 })).resolves.toMatchObject({
      granted: false,
      reason: 'paused',
    });
  });

  describe('collect: the next pages fetched ahead, then extracted from what was fetched (a monitor page)', () => {
    it('fetches the pages follow would read, none extracted, and stops as follow does', async () => {
      const { load, loaded } = site({ [A]: [B], [B]: [C], [C]: [A] });
      const extracted: string[] = [];
      const f = new PageFollower({
        politeness: new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 }),
        robots: null,
        config: CONFIG,
        load,
        extract: (page) => {
          extracted.push(page.fetch.url);
          return Promise.resolve(extraction(page.fetch.url, 0.01));
        },
        signal: new AbortController().signal,
      });
      const first = await f.fetch(A);
      const ahead = await f.collect(first, A, { selector: 'a', max_pages: 10 });
      expect(ahead.pages.map((p) => [p.url, p.page.fetch.url])).toEqual([
        [B, B],
        [C, C],
      ]);
      // The last page links back to the first: the list's end, as follow judges it.
      expect(ahead.stopped).toEqual({ reason: 'no_next_link' });
      expect(extracted).toEqual([]);
      expect(await f.collect(first, A, { selector: 'a', max_pages: 2 })).toMatchObject({
        pages: [{ url: B }],
        stopped: { reason: 'max_pages', next: C },
      });

      // follow reads the collected pages without fetching them again, in order.
      loaded.length = 0;
      const { pages, stopped } = await f.follow(
        { url: A, page: first, extraction: extraction(A) },
        { selector: 'a', max_pages: 10 },
        null,
        ahead,
      );
      expect(pages.map((p) => p.url)).toEqual([A, B, C]);
      expect(stopped).toEqual({ reason: 'no_next_link' });
      expect(extracted).toEqual([B, C]);
      expect(loaded).toEqual([]);
    });

    it('a next page robots.txt refuses or that fails ends the collected pages, and follow stops there too', async () => {
      const { load, loaded } = site({ [A]: [B], [B]: [C], [C]: [] });
      const check = (url: string) =>
        Promise.resolve(
          url === C ? { verdict: 'disallowed' as const, why: 'robots.txt disallows it' } : { verdict: 'allowed' as const, why: '' },
        );
      const f = follower(load, { check });
      const first = await f.fetch(A);
      const ahead = await f.collect(first, A, { selector: 'a', max_pages: 10 });
      expect(ahead).toMatchObject({ pages: [{ url: B }], stopped: { reason: 'refused', next: C } });
      expect(loaded).toEqual([A, B]);
      const { pages, stopped } = await f.follow(
        { url: A, page: first, extraction: extraction(A) },
        { selector: 'a', max_pages: 10 },
        null,
        ahead,
      );
      expect(pages.map((p) => p.url)).toEqual([A, B]);
      expect(stopped).toEqual({ reason: 'refused', next: C, why: expect.stringContaining('robots.txt disallows it') });
    });

    it('the cost cap stops the extraction of collected pages (and comes before a fetch that stopped them)', async () => {
      const { load } = site({ [A]: [B], [B]: [C], [C]: [] });
      const f = follower(load);
      const first = await f.fetch(A);
      const ahead = await f.collect(first, A, { selector: 'a', max_pages: 10 });
      const capped = await f.follow(
        { url: A, page: first, extraction: extraction(A, 0.01) },
        { selector: 'a', max_pages: 10 },
        0.02,
        ahead,
      );
      expect(capped.pages.map((p) => p.url)).toEqual([A, B]);
      expect(capped.stopped).toMatchObject({ reason: 'budget', next: C });

      const failed = { pages: ahead.pages.slice(0, 1), stopped: { reason: 'failed' as const, next: C, why: 'HTTP 500' } };
      const spent = await f.follow(
        { url: A, page: first, extraction: extraction(A, 0.05) },
        { selector: 'a', max_pages: 10 },
        0.02,
        failed,
      );
      expect(spent.pages.map((p) => p.url)).toEqual([A]);
      expect(spent.stopped).toMatchObject({ reason: 'budget', next: B });
      const read = await f.follow({ url: A, page: first, extraction: extraction(A) }, { selector: 'a', max_pages: 10 }, null, failed);
      expect(read.pages.map((p) => p.url)).toEqual([A, B]);
      expect(read.stopped).toEqual({ reason: 'failed', next: C, why: 'HTTP 500' });
    });
  });
});
