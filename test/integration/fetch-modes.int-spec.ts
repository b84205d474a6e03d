import { AddressGuard, Fetcher, InMemoryHostModeMemory } from '@app/fetch';
import { quotesForPage, RETRY_AFTER_SECONDS, startFixtureSite, type FixtureSite } from '../fixtures/site';
import { ALLOWED_TEST_HOSTS, CHROMIUM, describeWithChromium, failure, parseQuotes, testResolver } from './fetch-helpers';

const expected = (page: number) => quotesForPage(page).map((q) => ({ text: q.text, author: q.author, tags: q.tags }));

describeWithChromium('static, dynamic and auto modes', () => {
  let site: FixtureSite;
  let fetcher: Fetcher;
  let memory: InMemoryHostModeMemory;
  const host = (name: string) => `http://${name}:${site.port}`;

  beforeAll(async () => {
    site = await startFixtureSite();
    memory = new InMemoryHostModeMemory();
    fetcher = new Fetcher({
      guard: new AddressGuard({ resolver: testResolver, allowHosts: ALLOWED_TEST_HOSTS }),
      static: { timeoutMs: 5_000 },
      dynamic: {
        pool: { executablePath: CHROMIUM, maxBrowsers: 1, retireAfterPages: 5 },
        timeoutMs: 15_000,
        settleMs: 3_000,
        challengeWaitMs: 1_500,
      },
      hostMemory: memory,
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await site.close();
  });

  it('static sees the quotes of /page/1/', async () => {
    const res = await fetcher.fetch(`${host('static.test')}/page/1/`, { mode: 'static' });
    expect(res.mode).toBe('static');
    expect(parseQuotes(res.html)).toEqual(expected(1));
  });

  it('static sees no quotes on /js/, dynamic sees them', async () => {
    expect(parseQuotes((await fetcher.fetch(`${host('public.test')}/js/`, { mode: 'static' })).html)).toEqual([]);
    const res = await fetcher.fetch(`${host('public.test')}/js/page/3/`, { mode: 'dynamic' });
    expect(res).toMatchObject({ mode: 'dynamic', status: 200, contentType: 'text/html' });
    expect(parseQuotes(res.html)).toEqual(expected(3));
  });

  it('dynamic renders the inline-JSON variant', async () => {
    const res = await fetcher.fetch(`${host('public.test')}/js/page/2/?inline=1`, { mode: 'dynamic' });
    expect(parseQuotes(res.html)).toEqual(expected(2));
  });

  it('auto stays static on a server-rendered page and remembers it', async () => {
    const res = await fetcher.fetch(`${host('static.test')}/page/2/`, { mode: 'auto' });
    expect(res.mode).toBe('static');
    expect(res.escalation).toBeUndefined();
    expect(parseQuotes(res.html)).toEqual(expected(2));
    expect(await memory.get(`static.test:${site.port}`)).toBe('static');
  });

  it('auto escalates /js/ to the browser, then goes straight to it for that host', async () => {
    const first = await fetcher.fetch(`${host('js.test')}/js/`, { mode: 'auto' });
    expect(first.mode).toBe('dynamic');
    expect(first.escalation?.reason).toMatch(/application root|noscript|visible text/);
    expect(parseQuotes(first.html)).toEqual(expected(1));
    expect(await memory.get(`js.test:${site.port}`)).toBe('dynamic');

    const staticHitsBefore = site.requests.filter((r) => r.path === '/js/page/4/').length;
    const second = await fetcher.fetch(`${host('js.test')}/js/page/4/`, { mode: 'auto' });
    expect(second.mode).toBe('dynamic');
    expect(second.escalation?.reason).toMatch(/remembered/);
    expect(parseQuotes(second.html)).toEqual(expected(4));
    // One request for the page (the browser's), no static attempt first.
    expect(site.requests.filter((r) => r.path === '/js/page/4/').length - staticHitsBefore).toBe(1);
  });

  it('auto follows a meta refresh to a JS page through the browser', async () => {
    const res = await fetcher.fetch(`${host('memory.test')}/meta-refresh`, { mode: 'auto' });
    expect(res.mode).toBe('dynamic');
    expect(res.escalation?.reason).toMatch(/meta refresh|application root|visible text/);
  });

  it('auto passes a JavaScript challenge in the browser', async () => {
    const res = await fetcher.fetch(`${host('public.test')}/js-botwall`, { mode: 'auto' });
    expect(res.mode).toBe('dynamic');
    expect(res.escalation?.reason).toMatch(/bot wall/);
    expect(res.status).toBe(200);
    expect(parseQuotes(res.html)).toEqual(expected(1));
  });

  it('a hard bot wall is `blocked` when the browser hits it too', async () => {
    expect(await failure(fetcher.fetch(`${host('public.test')}/botwall`, { mode: 'auto' }))).toMatchObject({
      category: 'blocked',
      retryable: false,
    });
    expect(await failure(fetcher.fetch(`${host('public.test')}/botwall`, { mode: 'dynamic' }))).toMatchObject({ category: 'blocked' });
  });

  it('static mode never launches a browser and reports a wall as http_error', async () => {
    const launches = fetcher.dynamicFetcher!.stats().launches;
    expect(await failure(fetcher.fetch(`${host('public.test')}/botwall`, { mode: 'static' }))).toMatchObject({
      category: 'http_error',
      extensions: { status: 403 },
    });
    expect(fetcher.dynamicFetcher!.stats().launches).toBe(launches);
  });

  it('maps browser-side errors to the same categories', async () => {
    expect(await failure(fetcher.fetch(`${host('public.test')}/status/429`, { mode: 'dynamic' }))).toMatchObject({
      category: 'rate_limit',
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
    expect(await failure(fetcher.fetch(`${host('public.test')}/status/404`, { mode: 'dynamic' }))).toMatchObject({
      category: 'http_error',
      extensions: { status: 404 },
    });
    expect(await failure(fetcher.fetch(`${host('public.test')}/status/500`, { mode: 'auto' }))).toMatchObject({
      category: 'http_error',
      retryable: true,
    });
    expect(await failure(fetcher.fetch(`${host('public.test')}/binary/file.zip`, { mode: 'dynamic' }))).toMatchObject({
      category: 'unsupported_content',
    });
    expect(await failure(fetcher.fetch(`${host('public.test')}/slow/headers`, { mode: 'dynamic', timeoutMs: 1_500 }))).toMatchObject({
      category: 'timeout',
      retryable: true,
    });
    expect(await failure(fetcher.fetch(`${host('public.test')}/page/1/`, { mode: 'dynamic', maxBytes: 2_000 }))).toMatchObject({
      category: 'content_too_large',
    });
    expect(await failure(fetcher.fetch(`${host('public.test')}/redirect/loop`, { mode: 'dynamic' }))).toMatchObject({
      category: 'fetch_error',
    });
  });

  it('records redirects in the browser', async () => {
    const res = await fetcher.fetch(`${host('public.test')}/redirect/chain/3`, { mode: 'dynamic' });
    expect(res.redirects).toHaveLength(3);
    expect(res.url).toBe(`${host('public.test')}/redirect/chain/0`);
  });

  it('retires browsers after N pages and keeps serving; sessions share a context', async () => {
    const before = fetcher.dynamicFetcher!.stats().launches;
    for (let i = 0; i < 6; i++) await fetcher.fetch(`${host('public.test')}/page/${i + 1}/`, { mode: 'dynamic' });
    const stats = fetcher.dynamicFetcher!.stats();
    expect(stats.launches).toBeGreaterThan(before);
    expect(stats).toMatchObject({ openContexts: 0, openPages: 0, activeLeases: 0 });

    const session = await fetcher.dynamicFetcher!.openSession();
    try {
      const pages = await Promise.all([1, 2, 3].map((p) => session.fetch(`${host('public.test')}/page/${p}/`)));
      expect(pages.map((p) => parseQuotes(p.html).length)).toEqual([10, 10, 10]);
      expect(fetcher.dynamicFetcher!.stats().openContexts).toBe(1);
    } finally {
      await session.close();
    }
  });
});
