/**
 * Per-request fetch control against the docs fixture, in both fetch modes: the caller's headers and
 * cookies reach the page's host and no other (a redirect to another host goes without them), the
 * User-Agent replaces the generated one, wait_for waits (or fails as a timeout), screenshots, PDFs.
 */
import { AddressGuard, Fetcher, type Resolver, type ScopedRequestData } from '@app/fetch';
import { REPORT_PDF, SECRET_COOKIE, SECRET_HEADER, startDocsSite, type DocsSite } from '../fixtures/docs-site/docs-site';
import { CHROMIUM, describeWithChromium, failure } from './fetch-helpers';

const resolver: Resolver = async (hostname) => {
  if (hostname === 'docs.test' || hostname === 'other.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

const SCOPED: ScopedRequestData = { headers: { 'X-Api-Key': SECRET_HEADER }, cookies: { session: SECRET_COOKIE } };
const UA = 'GleanerTest/1.0 (fetch control)';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describeWithChromium('fetch control', () => {
  let site: DocsSite;
  let fetcher: Fetcher;

  beforeAll(async () => {
    site = await startDocsSite();
    fetcher = new Fetcher({
      guard: new AddressGuard({ resolver, allowHosts: ['docs.test', 'other.test'] }),
      static: { timeoutMs: 30_000 }, // a bound, not a measure: the first fetch of a busy machine's process may take seconds
      dynamic: { pool: { executablePath: CHROMIUM, maxBrowsers: 1 }, timeoutMs: 20_000, settleMs: 1_000, challengeWaitMs: 0 },
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await site.close();
  });

  const requestsSince = (start: number) => site.requests.slice(start);

  for (const mode of ['static', 'dynamic'] as const) {
    describe(`${mode} mode`, () => {
      it('sends the scoped cookie and header to the page and the User-Agent instead of the generated one', async () => {
        const start = site.requests.length;
        const cookie = await fetcher.fetch(site.url('docs.test', '/needs-cookie'), { mode, scoped: SCOPED, userAgent: UA });
        expect(cookie.status).toBe(200);
        expect(cookie.html).toContain('Welcome back, member.');
        const header = await fetcher.fetch(site.url('docs.test', '/needs-header'), { mode, scoped: SCOPED, userAgent: UA });
        expect(header.html).toContain('Key accepted.');
        const pages = requestsSince(start).filter((r) => r.path === '/needs-cookie' || r.path === '/needs-header');
        expect(pages.length).toBeGreaterThanOrEqual(2);
        for (const r of pages) expect(r).toMatchObject({ userAgent: UA, apiKey: SECRET_HEADER });
        expect(pages.every((r) => (r.cookie ?? '').includes(`session=${SECRET_COOKIE}`))).toBe(true);
      });

      it('fails without them (the fixture really checks)', async () => {
        const error = await failure(fetcher.fetch(site.url('docs.test', '/needs-cookie'), { mode }));
        expect(error).toMatchObject({ category: 'http_error' });
      });

      it('never sends them to another host a redirect leads to', async () => {
        const start = site.requests.length;
        const res = await fetcher.fetch(site.url('docs.test', '/to-other'), { mode, scoped: SCOPED, userAgent: UA });
        expect(res.url).toBe(site.url('other.test', '/landing'));
        expect(res.html).toContain('You left docs.test.');
        const seen = requestsSince(start);
        const first = seen.find((r) => r.host === 'docs.test' && r.path === '/to-other');
        expect(first).toMatchObject({ apiKey: SECRET_HEADER, userAgent: UA });
        const other = seen.filter((r) => r.host === 'other.test');
        expect(other.length).toBeGreaterThanOrEqual(1);
        for (const r of other) {
          expect(r.apiKey).toBeUndefined();
          expect(r.cookie ?? '').not.toContain(SECRET_COOKIE);
          expect(r.userAgent).toBe(UA);
        }
      });

      it('sends them again after a redirect back on the same host', async () => {
        const res = await fetcher.fetch(site.url('docs.test', '/to-same'), { mode, scoped: SCOPED });
        expect(res.status).toBe(200);
        expect(res.html).toContain('Key accepted.');
        expect(res.redirects).toEqual([site.url('docs.test', '/to-same')]);
      });

      it('reads a PDF as bytes when asked to (the browser hands it to plain HTTP), refuses it otherwise', async () => {
        const pdf = await fetcher.fetch(site.url('docs.test', '/report.pdf'), { mode, acceptPdf: true, scoped: SCOPED });
        expect(pdf).toMatchObject({ contentType: 'application/pdf', html: '', status: 200 });
        expect(pdf.body?.equals(REPORT_PDF)).toBe(true);
        const refused = await failure(fetcher.fetch(site.url('docs.test', '/report.pdf'), { mode }));
        expect(refused.category).toBe('unsupported_content');
      });
    });
  }

  it('static: a PDF served as octet-stream is sniffed; an image stays unsupported_content', async () => {
    const pdf = await fetcher.fetch(site.url('docs.test', '/report-octet'), { mode: 'static', acceptPdf: true });
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.body?.length).toBe(REPORT_PDF.length);
    const image = await failure(fetcher.fetch(site.url('docs.test', '/image.png'), { mode: 'static', acceptPdf: true }));
    expect(image.category).toBe('unsupported_content');
  });

  it('dynamic: wait_for a selector waits for late content', async () => {
    const res = await fetcher.fetch(site.url('docs.test', '/late'), { mode: 'dynamic', waitFor: { selector: '#late' } });
    expect(res.html).toContain('Late content arrived');
  });

  it('dynamic: wait_for a selector that never appears fails as a timeout', async () => {
    const error = await failure(
      fetcher.fetch(site.url('docs.test', '/late'), { mode: 'dynamic', waitFor: { selector: '#never-there' }, timeoutMs: 3_000 }),
    );
    expect(error.category).toBe('timeout');
    expect(error.message).toMatch(/wait_for\.selector/);
  });

  it('dynamic: wait_for ms waits that long before reading the page', async () => {
    const res = await fetcher.fetch(site.url('docs.test', '/late'), { mode: 'dynamic', waitFor: { ms: 4_000 } });
    expect(res.html).toContain('Late content arrived');
  });

  it('auto renders when asked to wait or for a screenshot', async () => {
    const res = await fetcher.fetch(site.url('docs.test', '/late'), { mode: 'auto', waitFor: { selector: '#late' } });
    expect(res.mode).toBe('dynamic');
    const shot = await fetcher.fetch(site.url('docs.test', '/article'), { mode: 'auto', screenshot: 'viewport' });
    expect(shot.mode).toBe('dynamic');
    expect(shot.screenshot?.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  });

  it('a full-page screenshot is at least as tall as the viewport', async () => {
    const res = await fetcher.fetch(site.url('docs.test', '/article'), { mode: 'dynamic', screenshot: 'full_page' });
    const png = res.screenshot!;
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.readUInt32BE(16)).toBe(1366); // IHDR width
    expect(png.readUInt32BE(20)).toBeGreaterThan(0);
  });
});
