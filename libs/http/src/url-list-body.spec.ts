import { AppError } from '@app/core';
import { readUrlListBody, URL_LIST_MAX_LINE_BYTES } from './url-list-body';

async function* chunks(...parts: Array<string | Buffer>): AsyncIterable<Buffer> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part;
}
const limits = { maxUrls: 3, maxBytes: 100_000 };
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: AppError) => ({ slug: error.slug, errors: error.errors }),
  );

describe('readUrlListBody', () => {
  it('reads text/plain across chunk boundaries, skipping blank and comment lines, keeping lines and indexes', async () => {
    const body = await readUrlListBody(chunks('# list\r\nhttp://a.test/1\r', '\n\nhttp://b.te', 'st/2'), 'text/plain', limits);
    expect(body.urls).toEqual([
      { index: 0, line: 2, url: 'http://a.test/1' },
      { index: 1, line: 4, url: 'http://b.test/2' },
    ]);
  });

  it('reads ndjson strings and {"url"} objects; anything else is a 422 at its line', async () => {
    const body = await readUrlListBody(chunks('"http://a.test/1"\n{"url":"http://b.test/2"}\n'), 'application/x-ndjson', limits);
    expect(body.urls.map((u) => u.url)).toEqual(['http://a.test/1', 'http://b.test/2']);
    expect(await failure(readUrlListBody(chunks('"x"\n# no\n'), 'application/x-ndjson', limits))).toEqual({
      slug: 'validation-error',
      errors: [{ location: 'body.lines[2]', message: 'is not valid JSON' }],
    });
    expect(await failure(readUrlListBody(chunks('{"url":"x","y":1}'), 'application/x-ndjson', limits))).toMatchObject({
      errors: [{ location: 'body.lines[1]' }],
    });
  });

  it('refuses more URLs than the cap (422 at body), more bytes than the limit (413), a long line (422) and bytes that are not UTF-8 (400)', async () => {
    expect(await failure(readUrlListBody(chunks('a\nb\nc\n\n\nd\n'), 'text/plain', limits))).toEqual({
      slug: 'validation-error',
      errors: [{ location: 'body', message: 'must have at most 3 URLs' }],
    });
    expect(
      await failure(readUrlListBody(chunks('\n'.repeat(60), '\n'.repeat(60)), 'text/plain', { maxUrls: 3, maxBytes: 100 })),
    ).toMatchObject({
      slug: 'payload-too-large',
    });
    expect(await failure(readUrlListBody(chunks('a\n', 'x'.repeat(URL_LIST_MAX_LINE_BYTES + 1)), 'text/plain', limits))).toEqual({
      slug: 'validation-error',
      errors: [{ location: 'body.lines[2]', message: `is longer than ${URL_LIST_MAX_LINE_BYTES} bytes` }],
    });
    expect(await failure(readUrlListBody(chunks(Buffer.from([0x68, 0xff, 0x0a])), 'text/plain', limits))).toMatchObject({
      slug: 'bad-request',
    });
  });
});
