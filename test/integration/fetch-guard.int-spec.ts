import { AddressGuard, Fetcher, StaticFetcher } from '@app/fetch';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { ALLOWED_TEST_HOSTS, CHROMIUM, describeWithChromium, failure, parseQuotes, testResolver } from './fetch-helpers';

describe('address guard on static fetches', () => {
  let site: FixtureSite;
  let fetcher: StaticFetcher;
  let pub: string;

  beforeAll(async () => {
    site = await startFixtureSite();
    pub = `http://public.test:${site.port}`;
    // The guard is ON; only the public.test alias (→ 127.0.0.1) is allowlisted.
    fetcher = new StaticFetcher({ guard: new AddressGuard({ resolver: testResolver, allowHosts: ALLOWED_TEST_HOSTS }), timeoutMs: 5_000 });
  });
  afterAll(async () => {
    fetcher.close();
    await site.close();
  });

  it('fetches through an allowlisted name', async () => {
    expect(parseQuotes((await fetcher.fetch(`${pub}/page/1/`)).html)).toHaveLength(10);
  });

  it.each([
    ['127.0.0.1', (p: number) => `http://127.0.0.1:${p}/page/1/`],
    ['localhost', (p: number) => `http://localhost:${p}/`],
    ['[::1]', (p: number) => `http://[::1]:${p}/`],
    ['[::ffff:127.0.0.1]', (p: number) => `http://[::ffff:127.0.0.1]:${p}/`],
    ['0.0.0.0', (p: number) => `http://0.0.0.0:${p}/`],
    ['decimal 2130706433', (p: number) => `http://2130706433:${p}/`],
    ['octal 0177.0.0.1', (p: number) => `http://0177.0.0.1:${p}/`],
    ['hex 0x7f.0.0.1', (p: number) => `http://0x7f.0.0.1:${p}/`],
    ['a name resolving to 10.0.0.5', () => `http://evil.test/`],
    ['a name resolving to the metadata address', () => `http://rebind.test/latest/meta-data/`],
    ['the metadata address', () => `http://169.254.169.254/latest/meta-data/`],
    ['metadata.google.internal', () => `http://metadata.google.internal/computeMetadata/v1/`],
  ])('refuses %s (ssrf_blocked, not retryable)', async (_name, makeUrl) => {
    expect(await failure(fetcher.fetch(makeUrl(site.port)))).toMatchObject({ category: 'ssrf_blocked', retryable: false });
  });

  it('refuses a redirect from an allowed host to loopback, before connecting', async () => {
    const before = site.requests.length;
    const e = await failure(fetcher.fetch(`${pub}/redirect/to?url=${encodeURIComponent(`http://127.0.0.1:${site.port}/page/1/`)}`));
    expect(e).toMatchObject({ category: 'ssrf_blocked' });
    // Only the redirecting request reached the site; the loopback target never did.
    expect(site.requests.slice(before).map((r) => r.path)).toEqual([expect.stringMatching(/^\/redirect\/to/)]);
  });

  it('refuses redirects to other forbidden targets and schemes', async () => {
    for (const target of ['http://10.0.0.1/', 'http://evil.test/', 'http://[::1]/', 'file:///etc/passwd']) {
      expect(await failure(fetcher.fetch(`${pub}/redirect/to?url=${encodeURIComponent(target)}`))).toMatchObject({
        category: 'ssrf_blocked',
      });
    }
  });

  it('allowPrivateNetworks lifts the guard', async () => {
    const open = new StaticFetcher({ guard: new AddressGuard({ allowPrivateNetworks: true }) });
    try {
      expect((await open.fetch(`${site.url}/page/1/`)).status).toBe(200);
    } finally {
      open.close();
    }
  });
});

describeWithChromium('address guard inside the browser', () => {
  let site: FixtureSite;
  let fetcher: Fetcher;
  let pub: string;

  beforeAll(async () => {
    site = await startFixtureSite();
    pub = `http://public.test:${site.port}`;
    fetcher = new Fetcher({
      guard: new AddressGuard({ resolver: testResolver, allowHosts: ALLOWED_TEST_HOSTS }),
      dynamic: { pool: { executablePath: CHROMIUM, maxBrowsers: 1 }, timeoutMs: 15_000, settleMs: 2_000, challengeWaitMs: 1_000 },
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await site.close();
  });

  it('renders through an allowlisted name (the browser resolves via the guard proxy)', async () => {
    const res = await fetcher.fetch(`${pub}/page/1/`, { mode: 'dynamic' });
    expect(parseQuotes(res.html)).toHaveLength(10);
  });

  it('blocks sub-requests to loopback, private and metadata addresses', async () => {
    const res = await fetcher.fetch(`${pub}/private-links`, { mode: 'dynamic' });
    expect(res.status).toBe(200);
    expect(res.blockedRequests).toEqual(
      expect.arrayContaining(['http://10.0.0.1/x.js', `http://127.0.0.1:${site.port}/api/quotes?page=1&via=loopback`]),
    );
    // Nothing addressed to 127.0.0.1 reached the site.
    expect(site.requests.filter((r) => r.path.includes('via=loopback'))).toEqual([]);
    expect(site.requests.filter((r) => r.host.startsWith('127.0.0.1'))).toEqual([]);
  });

  it('blocks loopback images too when resource blocking is off', async () => {
    const open = new Fetcher({
      guard: new AddressGuard({ resolver: testResolver, allowHosts: ALLOWED_TEST_HOSTS }),
      dynamic: { pool: { executablePath: CHROMIUM, maxBrowsers: 1 }, blockResources: [], settleMs: 2_000 },
    });
    try {
      const res = await open.fetch(`${pub}/private-links`, { mode: 'dynamic' });
      expect(res.blockedRequests).toEqual(
        expect.arrayContaining([
          `http://127.0.0.1:${site.port}/pixel.png?via=loopback`,
          'http://169.254.169.254/latest/meta-data/pixel.png',
        ]),
      );
      expect(site.requests.filter((r) => r.path.includes('via=same-origin')).length).toBeGreaterThan(0);
      expect(site.requests.filter((r) => r.path.includes('via=loopback'))).toEqual([]);
    } finally {
      await open.close();
    }
  });

  it('refuses a browser navigation that redirects to loopback', async () => {
    const e = await failure(
      fetcher.fetch(`${pub}/redirect/to?url=${encodeURIComponent(`http://127.0.0.1:${site.port}/page/1/`)}`, { mode: 'dynamic' }),
    );
    expect(e.category).toBe('ssrf_blocked');
    expect(site.requests.filter((r) => r.host.startsWith('127.0.0.1'))).toEqual([]);
  });

  it.each([
    ['script', (p: number) => `http://127.0.0.1:${p}/page/1/`],
    ['meta refresh', () => 'http://10.0.0.1/'],
    ['form', () => 'https://169.254.169.254/latest/meta-data/'],
  ])(
    'refuses a page whose %s navigates to a forbidden address: a failed page, never the browser error page as content',
    async (how, makeTarget) => {
      const path = `/navigate/${how.split(' ')[0]}?url=${encodeURIComponent(makeTarget(site.port))}`;
      const e = await failure(fetcher.fetch(`${pub}${path}`, { mode: 'dynamic' }));
      expect(e).toMatchObject({ category: 'ssrf_blocked', retryable: false });
      expect(e.message).not.toContain('chrome-error');
      expect(site.requests.filter((r) => r.host.startsWith('127.0.0.1'))).toEqual([]);
    },
  );

  it('fails a page that navigated to the browser error page for another reason (never the error page as content)', async () => {
    // TLS to a plain HTTP server: the tunnel opens, the handshake fails, the tab shows chrome-error://.
    const e = await failure(
      fetcher.fetch(`${pub}/navigate/script?url=${encodeURIComponent(`https://public.test:${site.port}/page/2/`)}`, { mode: 'dynamic' }),
    );
    expect(e).toMatchObject({ category: 'fetch_error' });
    expect(e.message).toContain(`https://public.test:${site.port}/page/2/`);
  });

  it('refuses forbidden page URLs before the browser is involved', async () => {
    expect(await failure(fetcher.fetch(`http://127.0.0.1:${site.port}/`, { mode: 'dynamic' }))).toMatchObject({ category: 'ssrf_blocked' });
    expect(await failure(fetcher.fetch('http://evil.test/', { mode: 'dynamic' }))).toMatchObject({ category: 'ssrf_blocked' });
  });
});
