import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressGuard, StaticFetcher } from '@app/fetch';
import { waitFor } from '../e2e/helpers';
import { CHARSET_SAMPLE, quotesForPage, RETRY_AFTER_SECONDS, startFixtureSite, type FixtureSite } from '../fixtures/site';
import { failure, parseQuotes } from './fetch-helpers';

/**
 * A server that never finishes its answers and records whether the client hung up on them: either
 * no headers at all (/slow/headers) or headers and a body that drips a byte every 100 ms (/slow/body).
 */
async function startStallingServer(): Promise<{
  url: string;
  requests: Array<{ path: string; aborted: boolean }>;
  close(): Promise<void>;
}> {
  const requests: Array<{ path: string; aborted: boolean }> = [];
  const server = http.createServer((req, res) => {
    const record = { path: req.url ?? '/', aborted: false };
    requests.push(record);
    let drip: NodeJS.Timeout | undefined;
    res.on('close', () => {
      clearInterval(drip);
      if (!res.writableFinished) record.aborted = true;
    });
    if (record.path === '/slow/body') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<!DOCTYPE html><html><body><p>');
      drip = setInterval(() => res.write('.'), 100);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('static fetch against the fixture site', () => {
  let site: FixtureSite;
  let fetcher: StaticFetcher;

  beforeAll(async () => {
    site = await startFixtureSite();
    // A generous limit: /endless must reach the size cut before it, also on a machine busy with other work.
    fetcher = new StaticFetcher({ guard: new AddressGuard({ allowPrivateNetworks: true }), timeoutMs: 60_000 });
  });
  afterAll(async () => {
    fetcher.close();
    await site.close();
  });

  it('reads the exact quotes of /page/1/ and /page/2/', async () => {
    for (const page of [1, 2]) {
      const res = await fetcher.fetch(`${site.url}/page/${page}/`);
      expect(res).toMatchObject({ status: 200, contentType: 'text/html', charset: 'utf-8', mode: 'static', redirects: [] });
      expect(res.bytes).toBe(Buffer.byteLength(res.html));
      expect(parseQuotes(res.html)).toEqual(quotesForPage(page).map((q) => ({ text: q.text, author: q.author, tags: q.tags })));
    }
  });

  it('sends browser-like headers', async () => {
    const res = await fetcher.fetch(`${site.url}/echo/headers`);
    const headers = JSON.parse(res.html) as Record<string, string>;
    expect(headers['user-agent']).toMatch(/Mozilla\/5\.0/);
    expect(headers.accept).toMatch(/text\/html/);
    expect(headers['accept-language']).toBeTruthy();
    expect(headers['sec-fetch-mode']).toBe('navigate');
    expect(headers['content-length']).toBeUndefined();
    expect(res.contentType).toBe('application/json');
  });

  it("reuses a few browser header sets, and a request's own headers never stay in them", async () => {
    const agents = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const extra = i % 2 === 0 ? { headers: { 'X-Only-Once': `call-${i}` } } : {};
      const headers = JSON.parse((await fetcher.fetch(`${site.url}/echo/headers`, extra)).html) as Record<string, string>;
      expect(headers['x-only-once']).toBe(i % 2 === 0 ? `call-${i}` : undefined);
      expect(headers['sec-fetch-site']).toBe('none');
      agents.add(headers['user-agent']);
    }
    // Made once per set and reused: 16 sets at most (header-generator may well draw one browser twice).
    expect(agents.size).toBeLessThanOrEqual(16);
  });

  it('sees no quotes on the JavaScript-rendered /js/ page', async () => {
    const res = await fetcher.fetch(`${site.url}/js/`);
    expect(parseQuotes(res.html)).toEqual([]);
  });

  it('follows up to 10 redirects and records them', async () => {
    const res = await fetcher.fetch(`${site.url}/redirect/chain/10`);
    expect(res.status).toBe(200);
    expect(res.redirects).toHaveLength(10);
    expect(res.redirects[0]).toBe(`${site.url}/redirect/chain/10`);
    expect(res.url).toBe(`${site.url}/redirect/chain/0`);
  });

  it('fails on 11 redirects and on loops (fetch_error, not retryable)', async () => {
    expect(await failure(fetcher.fetch(`${site.url}/redirect/chain/11`))).toMatchObject({
      category: 'fetch_error',
      retryable: false,
      message: expect.stringMatching(/too many redirects/i),
    });
    expect(await failure(fetcher.fetch(`${site.url}/redirect/loop`))).toMatchObject({
      category: 'fetch_error',
      message: expect.stringMatching(/loop/i),
    });
  });

  it('maps 429 and 503+Retry-After to rate_limit with retryAfterSeconds', async () => {
    expect(await failure(fetcher.fetch(`${site.url}/status/429`))).toMatchObject({
      category: 'rate_limit',
      retryable: true,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
    const e = await failure(fetcher.fetch(`${site.url}/status/503-retry`));
    expect(e).toMatchObject({ category: 'rate_limit', retryable: true });
    expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(115);
    expect(e.retryAfterSeconds).toBeLessThanOrEqual(121);
  });

  it('maps other error statuses to http_error with the status', async () => {
    expect(await failure(fetcher.fetch(`${site.url}/status/500`))).toMatchObject({
      category: 'http_error',
      retryable: true,
      extensions: { status: 500 },
    });
    expect(await failure(fetcher.fetch(`${site.url}/status/503`))).toMatchObject({ category: 'http_error', retryable: true });
    expect(await failure(fetcher.fetch(`${site.url}/status/404`))).toMatchObject({
      category: 'http_error',
      retryable: false,
      extensions: { status: 404 },
    });
  });

  it('fetchRaw returns error responses with their body', async () => {
    const raw = await fetcher.fetchRaw(`${site.url}/botwall`);
    expect(raw.status).toBe(403);
    expect(raw.html).toContain('Just a moment');
  });

  it.each([
    ['/binary/image.png', /image\/png/],
    ['/binary/file.zip', /application\/zip/],
    ['/binary/png-as-html', /binary although labelled text\/html/],
    ['/binary/untyped', /binary/],
  ])('refuses %s as unsupported_content', async (path, message) => {
    expect(await failure(fetcher.fetch(`${site.url}${path}`))).toMatchObject({
      category: 'unsupported_content',
      retryable: false,
      message: expect.stringMatching(message),
    });
  });

  it('sniffs an untyped HTML body', async () => {
    expect(await fetcher.fetch(`${site.url}/text/untyped`)).toMatchObject({ contentType: 'text/html' });
  });

  it('accepts XML', async () => {
    const res = await fetcher.fetch(`${site.url}/sitemap.xml`);
    expect(res.contentType).toBe('application/xml');
    expect(res.html).toContain('<urlset');
  });

  it.each([
    ['latin1', 'header'],
    ['meta-only', 'meta'],
    ['http-equiv', 'meta'],
    ['wrong-header', 'meta'],
  ])('decodes /charset/%s', async (variant) => {
    const res = await fetcher.fetch(`${site.url}/charset/${variant}`);
    expect(res.charset).toBe('windows-1252');
    expect(res.html).toContain(`<p id="sample">${CHARSET_SAMPLE}</p>`);
  });

  // /endless never ends: without the cut the fetch would not return at all.
  it.each(['/big', '/big?chunked=1', '/endless'])('cuts %s at the size limit (content_too_large)', async (path) => {
    expect(await failure(fetcher.fetch(`${site.url}${path}`))).toMatchObject({ category: 'content_too_large', retryable: false });
  });

  it('honours a per-call maxBytes', async () => {
    expect(await failure(fetcher.fetch(`${site.url}/page/1/`, { maxBytes: 1000 }))).toMatchObject({ category: 'content_too_large' });
  });

  it.each(['/slow/headers', '/slow/body'])('times out on %s and drops the connection', async (path) => {
    // The server never completes the answer: only the deadline ends the fetch.
    const stalling = await startStallingServer();
    try {
      expect(await failure(fetcher.fetch(`${stalling.url}${path}`, { timeoutMs: 1_500 }))).toMatchObject({
        category: 'timeout',
        retryable: true,
      });
      await waitFor(async () => stalling.requests[0]?.aborted);
      expect(stalling.requests).toEqual([{ path, aborted: true }]);
    } finally {
      await stalling.close();
    }
  });

  it('maps connection refused to fetch_error (retryable)', async () => {
    const closed = await startFixtureSite();
    const url = closed.url;
    await closed.close();
    expect(await failure(fetcher.fetch(`${url}/`))).toMatchObject({ category: 'fetch_error', retryable: true });
  });

  it('rejects invalid URLs as invalid_request', async () => {
    expect(await failure(fetcher.fetch('not a url'))).toMatchObject({ category: 'invalid_request' });
  });
});
