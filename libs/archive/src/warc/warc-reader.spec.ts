import { gzipSync } from 'node:zlib';
import { readWarc, type WarcItem, type WarcLimits } from './warc-reader';

const LIMITS: WarcLimits = { maxHeaderBytes: 4096, maxRecordBytes: 64 * 1024, maxExpandedBytes: 1024 * 1024 };

function record(type: string, uri: string | null, content: string | Buffer, extra: Record<string, string> = {}, length?: number): Buffer {
  const body = typeof content === 'string' ? Buffer.from(content, 'latin1') : content;
  const headers = {
    'WARC-Type': type,
    'WARC-Record-ID': `<urn:uuid:${Math.random().toString(16).slice(2)}>`,
    'WARC-Date': '2026-11-01T10:00:00Z',
    ...(uri ? { 'WARC-Target-URI': uri } : {}),
    'Content-Length': String(length ?? body.length),
    ...extra,
  };
  const head = `WARC/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from('\r\n\r\n')]);
}

const http = (html: string) => `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n${html}`;

async function* chunks(data: Buffer, size = 997) {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

async function all(data: Buffer, limits = LIMITS): Promise<WarcItem[]> {
  const out: WarcItem[] = [];
  for await (const item of readWarc(chunks(data), limits)) out.push(item);
  return out;
}

const summary = (items: WarcItem[]) =>
  items.map((i) =>
    i.kind === 'record'
      ? `record:${i.warcType}:${i.headers['warc-target-uri'] ?? ''}`
      : `${i.kind}:${i.kind === 'fatal' ? '' : i.category}`,
  );

describe('readWarc', () => {
  const three = [
    record('warcinfo', null, 'software: test\r\n'),
    record('response', 'https://a.test/1', http('<p>1</p>')),
    record('response', 'https://a.test/2', http('<p>2</p>')),
  ];

  it('reads plain files, one gzip member per record, and one member for the whole file alike', async () => {
    const expected = ['record:warcinfo:', 'record:response:https://a.test/1', 'record:response:https://a.test/2'];
    expect(summary(await all(Buffer.concat(three)))).toEqual(expected);
    expect(summary(await all(Buffer.concat(three.map((r) => gzipSync(r)))))).toEqual(expected);
    expect(summary(await all(gzipSync(Buffer.concat(three))))).toEqual(expected);
    const items = await all(Buffer.concat(three));
    expect(items[1].kind === 'record' && items[1].content.toString('latin1')).toBe(http('<p>1</p>'));
  });

  it('a Content-Length too short or too long fails that record; the reader finds the next one', async () => {
    const short = record('response', 'https://a.test/short', http('<p>short</p>'), {}, 20);
    const long = record('response', 'https://a.test/long', http('<p>long</p>'), {}, 60);
    const items = await all(Buffer.concat([three[0], short, three[1], long, three[2]]));
    expect(summary(items)).toEqual([
      'record:warcinfo:',
      'problem:invalid_request',
      'record:response:https://a.test/1',
      'problem:invalid_request',
      'record:response:https://a.test/2',
    ]);
    expect(items[1].kind === 'problem' && items[1].targetUri).toBe('https://a.test/short');
    expect(items[1].kind === 'problem' && items[1].reason).toMatch(/Content-Length does not match/);
  });

  it('a Content-Length past the end of the file is a truncated record, the earlier ones count', async () => {
    const items = await all(Buffer.concat([three[1], record('response', 'https://a.test/x', http('<p>x</p>'), {}, 5000)]));
    expect(summary(items)).toEqual(['record:response:https://a.test/1', 'problem:invalid_request']);
    expect(items[1].kind === 'problem' && items[1].reason).toMatch(/ends in the middle of a record/);
  });

  it('a negative or non-numeric Content-Length fails its record; a huge one is skipped as it streams, never allocated, to the end of the file', async () => {
    const negative = record('response', 'https://a.test/neg', http('<p>n</p>'), { 'Content-Length': '-5' });
    const words = record('response', 'https://a.test/words', http('<p>w</p>'), { 'Content-Length': '12abc' });
    const items = await all(Buffer.concat([negative, words, three[1]]));
    expect(summary(items)).toEqual(['problem:invalid_request', 'problem:invalid_request', 'record:response:https://a.test/1']);
    expect(items.slice(0, 2).map((i) => i.kind === 'problem' && i.reason)).toEqual([
      'the record has no valid Content-Length',
      'the record has no valid Content-Length',
    ]);
    // Skipped as it streams: it swallows the rest of the file, which then ends in the middle of it.
    const huge = record('response', 'https://a.test/huge', http('<p>h</p>'), { 'Content-Length': '999999999999999' });
    const rest = await all(Buffer.concat([three[1], huge, three[2]]));
    expect(summary(rest)).toEqual(['record:response:https://a.test/1', 'problem:invalid_request']);
    expect(rest[1].kind === 'problem' && rest[1].reason).toMatch(/ends in the middle of a record/);
  });

  it('a huge header is refused without being held, and the next record is read', async () => {
    const huge = Buffer.concat([
      Buffer.from(`WARC/1.1\r\nWARC-Type: response\r\nX-Filler: ${'a'.repeat(200_000)}\r\nContent-Length: 4\r\n\r\nabcd\r\n\r\n`),
    ]);
    const items = await all(Buffer.concat([huge, three[1]]));
    expect(summary(items)).toEqual(['problem:invalid_request', 'record:response:https://a.test/1']);
    expect(items[0].kind === 'problem' && items[0].reason).toMatch(/larger than 4096 bytes/);
  });

  it('a record over the size cap is skipped as it streams (content_too_large); the file goes on', async () => {
    const big = record('response', 'https://a.test/big', http('x'.repeat(100_000)));
    expect(summary(await all(Buffer.concat([big, three[2]])))).toEqual(['problem:content_too_large', 'record:response:https://a.test/2']);
  });

  it('a gzip bomb stops at the expansion cap with what came before', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const items = await all(Buffer.concat([gzipSync(three[1]), bomb]));
    expect(summary(items)[0]).toBe('record:response:https://a.test/1');
    expect(items.at(-1)?.kind === 'fatal' && items.at(-1)?.kind === 'fatal' && (items.at(-1) as { reason: string }).reason).toMatch(
      /larger than 1048576 bytes once decompressed/,
    );
  });

  it('truncated or corrupt gzip ends the reading with a fatal item after the readable records', async () => {
    const file = Buffer.concat(three.map((r) => gzipSync(r)));
    const items = await all(file.subarray(0, file.length - 30));
    expect(items.slice(0, 2).map((i) => i.kind)).toEqual(['record', 'record']);
    expect(items.at(-1)?.kind).toBe('fatal');
  });

  it('a file that is not WARC gives one problem and nothing else', async () => {
    const items = await all(Buffer.from('<html><body>not a warc</body></html>\n'.repeat(100)));
    expect(summary(items)).toEqual(['problem:invalid_request']);
    expect(await all(Buffer.alloc(0))).toEqual([]);
  });

  it('header lines without a colon and records without a Content-Length are problems', async () => {
    const noColon = Buffer.from('WARC/1.1\r\nWARC-Type response\r\nContent-Length: 0\r\n\r\n\r\n\r\n');
    const noLength = Buffer.from('WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: <https://a.test/n>\r\n\r\n\r\n\r\n');
    const items = await all(Buffer.concat([noColon, noLength, three[2]]));
    expect(summary(items)).toEqual(['problem:invalid_request', 'problem:invalid_request', 'record:response:https://a.test/2']);
    expect(items[1].kind === 'problem' && items[1].targetUri).toBe('https://a.test/n');
  });
});
