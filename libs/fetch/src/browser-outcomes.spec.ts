import { AppError } from '@app/core';
import {
  beforeDeadline,
  BrowserDownload,
  checkRendered,
  isDownload,
  navigationError,
  parseUrl,
  redirectChain,
  tabCrashed,
  type RenderedPage,
} from './browser-outcomes';
import { REFUSED_HEADER } from './guarded-proxy';

const URL_A = 'https://example.test/a';
const category = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.category : (error as Error).name;
  }
  return undefined;
};

describe('navigationError', () => {
  const named = (name: string, message: string) => Object.assign(new Error(message), { name });
  it.each([
    [named('TimeoutError', 'page.goto: Timeout 30000ms exceeded.'), [], 'timeout'],
    [new Error('page.goto: Timeout 500ms exceeded.'), [], 'timeout'],
    [new Error('net::ERR_BLOCKED_BY_CLIENT at https://x'), ['http://10.0.0.1/'], 'ssrf_blocked'],
    [new Error('net::ERR_TUNNEL_CONNECTION_FAILED at https://x'), [], 'ssrf_blocked'],
    [new Error('Download is starting'), [], 'unsupported_content'],
    [new Error('net::ERR_ABORTED at https://x'), [], 'unsupported_content'],
    [new Error('net::ERR_TOO_MANY_REDIRECTS'), [], 'fetch_error'],
    [new Error('net::ERR_CONNECTION_REFUSED at https://x'), [], 'fetch_error'],
  ] as Array<[Error, string[], string]>)('maps %s to %s', (error, blocked, expected) => {
    expect(navigationError(error, URL_A, blocked).category).toBe(expected);
  });

  it('reports a client block as the guard only when the router refused something, and names the net:: code otherwise', () => {
    expect(navigationError(new Error('net::ERR_BLOCKED_BY_CLIENT'), URL_A, []).message).toBe(
      `Loading ${URL_A} failed: ERR_BLOCKED_BY_CLIENT.`,
    );
    expect(navigationError(new Error('something odd'), URL_A, []).message).toBe(`Loading ${URL_A} failed: navigation failed.`);
    expect(navigationError(new Error('net::ERR_TOO_MANY_REDIRECTS'), URL_A, []).retryable).toBe(false);
  });

  it('passes an AppError on as it is', () => {
    const error = new AppError('upstream-failure', 'x', { category: 'blocked' });
    expect(navigationError(error, URL_A, [])).toBe(error);
  });
});

describe('the small outcomes', () => {
  it('a crashed tab is not retried; a download is recognised; a bad URL is invalid_request', () => {
    expect(tabCrashed(URL_A)).toMatchObject({ category: 'fetch_error', retryable: false });
    expect(isDownload(new Error('Download is starting'))).toBe(true);
    expect(isDownload(new Error('net::ERR_ABORTED'))).toBe(false);
    expect(isDownload(undefined)).toBe(false);
    expect(category(() => parseUrl('not a url'))).toBe('invalid_request');
    expect(parseUrl(URL_A).href).toBe(URL_A);
  });

  it('lists the redirects a response came through, first to last', () => {
    const request = (url: string, from: unknown) => ({ url: () => url, redirectedFrom: () => from });
    const first = request('https://a.test/1', null);
    const second = request('https://a.test/2', first);
    const last = request('https://a.test/3', second);
    expect(redirectChain({ request: () => last } as never)).toEqual(['https://a.test/1', 'https://a.test/2']);
    expect(redirectChain(undefined)).toEqual([]);
  });

  it('beforeDeadline gives the work when it comes first, and a timeout at the deadline when it never comes', async () => {
    await expect(beforeDeadline(Promise.resolve('html'), Date.now() + 10_000, URL_A)).resolves.toBe('html');
    const never = new Promise<string>(() => undefined);
    await expect(beforeDeadline(never, Date.now() + 5, URL_A)).rejects.toMatchObject({ category: 'timeout' });
    await expect(beforeDeadline(Promise.reject(new Error('gone')), Date.now() + 10_000, URL_A)).rejects.toThrow('gone');
  });
});

describe('checkRendered', () => {
  const limits = { maxBytes: 1000, maxRedirects: 2 };
  const page = (over: Partial<RenderedPage> = {}, document: RenderedPage['document'] = { url: URL_A, status: 200, headers: {} }) => ({
    url: URL_A,
    pageUrl: URL_A,
    html: '<p>hello</p>',
    wall: { blocked: false },
    redirects: [],
    ...(document ? { document } : {}),
    ...over,
  });

  it('takes a page with no document answer as a 200 HTML page, and counts its bytes in UTF-8', () => {
    expect(checkRendered(page({ html: 'é' }, undefined), limits)).toEqual({ contentType: 'text/html', bytes: 2 });
    expect(checkRendered(page({}, { url: URL_A, status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } }), limits)).toEqual({
      contentType: 'text/plain',
      bytes: 12,
    });
  });

  it('refuses, in order: the guard proxy’s refusal, a bot wall, an error status', () => {
    const refused = page(
      { wall: { blocked: true, reason: 'x' } },
      { url: URL_A, status: 403, headers: { [REFUSED_HEADER]: 'private address' } },
    );
    expect(category(() => checkRendered(refused, limits))).toBe('ssrf_blocked');
    expect(
      category(() => checkRendered(page({ wall: { blocked: true, reason: 'x' } }, { url: URL_A, status: 403, headers: {} }), limits)),
    ).toBe('blocked');
    expect(category(() => checkRendered(page({}, { url: URL_A, status: 404, headers: {} }), limits))).toBe('http_error');
    const limited = page({}, { url: URL_A, status: 429, headers: { 'retry-after': '7' } });
    expect(() => checkRendered(limited, limits)).toThrow(expect.objectContaining({ category: 'rate_limit', retryAfterSeconds: 7 }));
  });

  it('hands a PDF to plain HTTP when the caller accepts one, and refuses binaries, pages too large and too many redirects', () => {
    const pdf = page({}, { url: URL_A, status: 200, headers: { 'content-type': 'application/pdf' } });
    expect(() => checkRendered(pdf, { ...limits, acceptPdf: true })).toThrow(BrowserDownload);
    const binary = page({}, { url: URL_A, status: 200, headers: { 'content-type': 'image/png' } });
    expect(category(() => checkRendered(binary, limits))).toBe('unsupported_content');
    expect(category(() => checkRendered(page({ html: 'x'.repeat(1001) }), limits))).toBe('content_too_large');
    expect(checkRendered(page({ redirects: ['a', 'b'] }), limits).bytes).toBe(12);
    expect(category(() => checkRendered(page({ redirects: ['a', 'b', 'c'] }), limits))).toBe('fetch_error');
  });
});
