import type { FetchResult } from '@app/fetch';
import { pageCapture } from './page-capture';

const fetched = (over: Partial<FetchResult>): FetchResult => ({
  url: 'https://shop.test/a/',
  status: 200,
  headers: { 'content-type': 'text/html; charset=iso-8859-1', etag: '"x"' },
  contentType: 'text/html',
  charset: 'iso-8859-1',
  html: '<p>caf\u00e9</p>',
  bytes: 12,
  redirects: ['https://shop.test/a'],
  durationMs: 5,
  mode: 'static',
  ...over,
});

describe('pageCapture', () => {
  it('a static fetch: the bytes as received (not the decoded text), where the URL led, no rendered HTML', () => {
    const raw = Buffer.from('<p>caf\xe9</p>', 'latin1');
    const capture = pageCapture('https://shop.test/a', fetched({ raw }), '2026-10-01T10:00:00.000Z');
    expect(capture).toEqual({
      url: 'https://shop.test/a',
      finalUrl: 'https://shop.test/a/',
      status: 200,
      headers: { 'content-type': 'text/html; charset=iso-8859-1', etag: '"x"' },
      redirects: ['https://shop.test/a'],
      mode: 'static',
      contentType: 'text/html',
      charset: 'iso-8859-1',
      body: raw,
      fetchedAt: '2026-10-01T10:00:00.000Z',
    });
  });

  it('a PDF keeps its bytes', () => {
    const pdf = Buffer.from('%PDF-1.7 ...');
    expect(pageCapture('https://x.test/d.pdf', fetched({ contentType: 'application/pdf', html: '', body: pdf }), 't').body).toBe(pdf);
  });

  it('a browser fetch keeps the rendered HTML too; without the document bytes, the rendered HTML stands for them', () => {
    const raw = Buffer.from('<div id=app></div>');
    const withRaw = pageCapture('https://x.test/', fetched({ mode: 'dynamic', html: '<div id=app><p>hi</p></div>', raw }), 't');
    expect(withRaw).toMatchObject({ mode: 'dynamic', body: raw, rendered: '<div id=app><p>hi</p></div>' });
    const without = pageCapture('https://x.test/', fetched({ mode: 'dynamic', html: '<p>hi</p>' }), 't');
    expect(without.body.toString('utf8')).toBe('<p>hi</p>');
    expect(without.rendered).toBe('<p>hi</p>');
  });
});
