import { AddressGuard } from './address-guard';
import { SessionRouter, type NavigationState } from './browser-routing';
import { PageRenderer } from './page-renderer';

/*
 * The renderer's own logic on a stand-in page (navigation, redirects it follows itself, the checks of a landed page,
 * its bookkeeping); Chromium renders real pages in the fetch suites (test/integration/fetch-*.int-spec.ts).
 */

const guard = new AddressGuard({
  resolver: async (host) => [{ address: host === 'intranet.test' ? '10.0.0.7' : '93.184.216.34', family: 4 }],
});
const settings = {
  guard,
  timeoutMs: 10_000,
  settleMs: 1,
  challengeWaitMs: 0,
  maxBytes: 1_000,
  maxRedirects: 3,
  viewport: { width: 800, height: 600 },
};

type Goto = (href: string, navigation: NavigationState, page: FakePage) => Promise<unknown>;

class FakePage {
  readonly visited: string[] = [];
  readonly handlers = new Map<string, (value?: unknown) => void>();
  current = 'about:blank';
  closed = false;
  constructor(
    private readonly goto_: Goto,
    private readonly navigation: () => NavigationState,
    private readonly html = '<p>hello</p>',
  ) {}
  on(event: string, handler: (value?: unknown) => void) {
    this.handlers.set(event, handler);
  }
  async goto(href: string) {
    this.visited.push(href);
    const response = await this.goto_(href, this.navigation(), this);
    this.current = href;
    return response;
  }
  mainFrame() {
    return this;
  }
  url() {
    return this.current;
  }
  async content() {
    return this.html;
  }
  async waitForLoadState() {}
  async setExtraHTTPHeaders() {}
  async close() {
    this.closed = true;
  }
}

const response = (url: string, status = 200, headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' }) => ({
  url: () => url,
  status: () => status,
  headers: () => headers,
  request: () => ({ redirectedFrom: () => null }),
  body: async () => Buffer.from('raw'),
});

function rendering(goto: Goto, html?: string) {
  const renderer = new PageRenderer(settings);
  const router = new SessionRouter(guard, new Set(), undefined, undefined);
  let navigation: NavigationState | undefined;
  const track = router.track.bind(router);
  router.track = (page, deadline) => (navigation = track(page, deadline));
  const page = new FakePage(goto, () => navigation!, html);
  const context = { newPage: async () => page } as never;
  return { renderer, page, render: (url: string, options = {}) => renderer.render(context, url, options, router) };
}

describe('PageRenderer', () => {
  it('renders a page: its answer, type, size and raw bytes, and closes the page', async () => {
    const { renderer, page, render } = rendering(async (href) => response(href));
    const result = await render('https://site.test/a', { keepRaw: true });
    expect(result).toMatchObject({
      url: 'https://site.test/a',
      status: 200,
      contentType: 'text/html',
      charset: 'utf-8',
      html: '<p>hello</p>',
      bytes: 12,
      redirects: [],
      mode: 'dynamic',
      blockedRequests: [],
      raw: Buffer.from('raw'),
    });
    expect(page.closed).toBe(true);
    expect(renderer.openPages).toBe(0);
  });

  it('follows a redirect the session router hands back as a new navigation, and stops a loop', async () => {
    const hop = async (href: string, navigation: NavigationState) => {
      if (href.endsWith('/a')) {
        navigation.redirectTo = 'https://site.test/b#frag';
        throw new Error('net::ERR_ABORTED');
      }
      return response(href);
    };
    const followed = rendering(hop);
    expect(await followed.render('https://site.test/a')).toMatchObject({ url: 'https://site.test/b', redirects: ['https://site.test/a'] });
    expect(followed.page.visited).toEqual(['https://site.test/a', 'https://site.test/b']);

    const loop = rendering(async (href, navigation) => {
      navigation.redirectTo = href.endsWith('/a') ? 'https://site.test/b' : 'https://site.test/a';
      throw new Error('net::ERR_ABORTED');
    });
    await expect(loop.render('https://site.test/a')).rejects.toMatchObject({
      category: 'fetch_error',
      message: 'Redirect loop at https://site.test/a.',
    });
  });

  it('checks every redirect target with the guard before the browser goes there', async () => {
    const { page, render } = rendering(async (href, navigation) => {
      navigation.redirectTo = 'http://intranet.test/admin';
      throw new Error('net::ERR_ABORTED');
    });
    await expect(render('https://site.test/a')).rejects.toMatchObject({ category: 'ssrf_blocked' });
    expect(page.visited).toEqual(['https://site.test/a']);
  });

  it('maps a failed navigation, a crashed tab, and a page that refuses to be a page', async () => {
    await expect(
      rendering(async () => Promise.reject(new Error('net::ERR_NAME_NOT_RESOLVED'))).render('https://site.test/a'),
    ).rejects.toMatchObject({
      category: 'fetch_error',
      message: 'Loading https://site.test/a failed: ERR_NAME_NOT_RESOLVED.',
    });
    const crash = rendering(async (_href, _navigation, page) => {
      page.handlers.get('crash')!();
      throw new Error('Target crashed');
    });
    await expect(crash.render('https://site.test/a')).rejects.toMatchObject({ category: 'fetch_error', retryable: false });
    await expect(rendering(async (href) => response(href, 404)).render('https://site.test/a')).rejects.toMatchObject({
      category: 'http_error',
    });
    await expect(rendering(async (href) => response(href), 'x'.repeat(1_001)).render('https://site.test/a')).rejects.toMatchObject({
      category: 'content_too_large',
    });
  });
});
