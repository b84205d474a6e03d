import { decodeBody, charsetFromMeta } from './charset';
import { kindFromMediaType, sniffContent } from './content-type';
import { statusError } from './errors';
import { InMemoryHostModeMemory } from './host-mode-memory';
import { parseRetryAfter } from './retry-after';

const cp1252 = Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x20, 0x93, 0x71, 0x94]); // Café € “q”

describe('decodeBody', () => {
  it('uses the header charset', () => {
    expect(decodeBody(cp1252, 'text/html; charset=windows-1252')).toMatchObject({ text: 'Café € “q”', source: 'header' });
    expect(decodeBody(cp1252, 'text/html; charset="ISO-8859-1"').text).toBe('Café € “q”'); // WHATWG: latin1 = windows-1252
  });
  it('falls back to meta charset and http-equiv', () => {
    const meta = Buffer.concat([Buffer.from('<meta charset="windows-1252">'), cp1252]);
    expect(decodeBody(meta, 'text/html')).toMatchObject({ charset: 'windows-1252', source: 'meta' });
    const equiv = Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'), cp1252]);
    expect(decodeBody(equiv, undefined).source).toBe('meta');
  });
  it('distrusts a UTF-8 header over bytes that are not UTF-8', () => {
    const r = decodeBody(Buffer.concat([Buffer.from('<meta charset="windows-1252">'), cp1252]), 'text/html; charset=utf-8');
    expect(r.text).toContain('Café € “q”');
    expect(r.source).toBe('meta');
    expect(decodeBody(cp1252, 'text/html; charset=utf-8')).toMatchObject({ charset: 'windows-1252', source: 'default' });
  });
  it('honours a BOM first and strips it', () => {
    expect(decodeBody(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]), 'text/html; charset=windows-1252')).toMatchObject({
      text: 'hi',
      source: 'bom',
    });
    expect(decodeBody(Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]), undefined)).toMatchObject({ text: 'hi', charset: 'utf-16le' });
  });
  it('sniffs UTF-8 and ignores unknown labels', () => {
    expect(decodeBody(Buffer.from('Grüße'), 'text/html; charset=x-unknown-thing')).toMatchObject({
      text: 'Grüße',
      charset: 'utf-8',
      source: 'sniffed',
    });
    expect(decodeBody(Buffer.from('<meta charset="shift_jis">'), undefined).charset).toBe('shift_jis');
  });
  it('reads meta charset only from the head of the document', () => {
    expect(charsetFromMeta(Buffer.from(`${' '.repeat(5000)}<meta charset="koi8-r">`))).toBeUndefined();
  });
});

describe('content types', () => {
  it.each([
    ['text/html', 'html'],
    ['application/xhtml+xml', 'html'],
    ['application/json', 'json'],
    ['application/ld+json', 'json'],
    ['application/rss+xml', 'xml'],
    ['text/xml', 'xml'],
    ['text/plain', 'text'],
    ['text/csv', 'text'],
    ['', 'unknown'],
    ['application/octet-stream', 'unknown'],
    ['image/png', 'binary'],
    ['application/pdf', 'binary'],
    ['application/zip', 'binary'],
  ])('%s is %s', (type, kind) => expect(kindFromMediaType(type)).toBe(kind));

  it('sniffs bodies', () => {
    expect(sniffContent(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]))).toBe('binary');
    expect(sniffContent(Buffer.from([0x50, 0x4b, 0x03, 0x04]))).toBe('binary');
    expect(sniffContent(Buffer.from('%PDF-1.7'))).toBe('binary');
    expect(sniffContent(Buffer.from('  <!DOCTYPE html><html>'))).toBe('html');
    expect(sniffContent(Buffer.from('<?xml version="1.0"?><rss>'))).toBe('xml');
    expect(sniffContent(Buffer.from('{"a":1}'))).toBe('json');
    expect(sniffContent(Buffer.from('plain words'))).toBe('text');
    expect(sniffContent(cp1252)).toBe('text');
  });
});

describe('Retry-After and status mapping', () => {
  it('parses seconds and HTTP-dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', now)).toBe(120);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
  it('maps statuses to categories and retry flags', () => {
    expect(statusError(429, 'u', 7)).toMatchObject({ category: 'rate_limit', retryable: true, retryAfterSeconds: 7 });
    expect(statusError(429, 'u', undefined)).toMatchObject({ category: 'rate_limit', retryable: true });
    expect(statusError(503, 'u', 30)).toMatchObject({ category: 'rate_limit', retryAfterSeconds: 30 });
    expect(statusError(503, 'u', undefined)).toMatchObject({ category: 'http_error', retryable: true });
    expect(statusError(500, 'u', undefined)).toMatchObject({ category: 'http_error', retryable: true });
    expect(statusError(404, 'u', undefined)).toMatchObject({
      category: 'http_error',
      retryable: false,
      extensions: { status: 404, url: 'u' },
    });
  });
});

describe('InMemoryHostModeMemory', () => {
  it('remembers, expires and evicts least recently used', async () => {
    let now = 0;
    const m = new InMemoryHostModeMemory({ maxEntries: 2, ttlMs: 100, now: () => now });
    await m.set('A.example', 'dynamic');
    await m.set('b.example', 'static');
    expect(await m.get('a.example')).toBe('dynamic');
    await m.set('c.example', 'static'); // evicts b (a was used)
    expect(await m.get('b.example')).toBeUndefined();
    expect(await m.get('a.example')).toBe('dynamic');
    now = 200;
    expect(await m.get('a.example')).toBeUndefined();
  });
});
