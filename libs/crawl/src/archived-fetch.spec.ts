import type { ArchivedPageRecord } from '@app/archive';
import { archivedFetch } from './archived-fetch';

function page(record: Partial<ArchivedPageRecord>, body: Buffer, rendered: Buffer | null = null) {
  return {
    record: {
      final_url: 'https://shop.example/p/1',
      status: 200,
      headers: { 'content-type': 'text/html; charset=iso-8859-1' },
      redirects: ['https://shop.example/p/1?ref=a'],
      fetch_mode: 'static',
      content_type: 'text/html',
      charset: 'iso-8859-1',
      ...record,
    } as ArchivedPageRecord,
    body,
    rendered,
  };
}

describe('archivedFetch', () => {
  it('decodes an HTML body with its charset, the bytes as received kept as raw when asked', () => {
    const body = Buffer.from([0x3c, 0x70, 0x3e, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]); // <p>é</p> in Latin-1
    const kept = archivedFetch(page({}, body), true);
    expect(kept).toEqual({
      url: 'https://shop.example/p/1',
      status: 200,
      headers: { 'content-type': 'text/html; charset=iso-8859-1' },
      contentType: 'text/html',
      charset: 'iso-8859-1',
      html: '<p>é</p>',
      raw: body,
      bytes: 8,
      redirects: ['https://shop.example/p/1?ref=a'],
      durationMs: 0,
      mode: 'static',
    });
    expect(archivedFetch(page({}, body), false)).not.toHaveProperty('raw');
  });

  it("reads a browser fetch's rendered HTML, and a PDF's bytes as its body", () => {
    const rendered = archivedFetch(page({ fetch_mode: 'dynamic' }, Buffer.from('<p>x</p>'), Buffer.from('<p>rendered</p>')), true);
    expect(rendered).toMatchObject({ html: '<p>rendered</p>', charset: 'utf-8', mode: 'dynamic' });
    const pdf = Buffer.from('%PDF-1.7');
    const document = archivedFetch(page({ content_type: 'application/pdf', headers: {} }, pdf), true);
    expect(document).toMatchObject({ html: '', body: pdf, bytes: 8 });
    expect(document).not.toHaveProperty('raw');
  });
});
