import { archiveParts, html, pageRecord, type ArchiveParts } from '../../../test/support/archive-parts';
import { ARCHIVE_ENCODING, encodeBody, sha256Hex } from './archive-codec';
import type { ArchivedPageRecord } from './archive.types';
import { PageReads } from './page-reads';

describe('PageReads', () => {
  let parts: ArchiveParts;
  let reads: PageReads;

  /** Writes a page record with its body inline in the body's document. */
  const keepInline = async (record: ArchivedPageRecord, body: Buffer) => {
    const encoded = await encodeBody(body);
    const create = {
      size: body.length,
      stored_size: encoded.length,
      encoding: ARCHIVE_ENCODING,
      stored: true,
      data: encoded.toString('base64'),
    };
    await parts.repository.keepPages([{ record, userId: record.user_id, bodies: [{ sha256: sha256Hex(body), create }] }]);
  };
  /** Writes a body's bytes to the blob store under `blobId`, marked stored. */
  const storeBlob = async (userId: string, body: Buffer, blobId: string) => {
    const encoded = await encodeBody(body);
    await parts.repository.touchBlob('pages', userId, sha256Hex(body), {
      blob_id: blobId,
      size: body.length,
      stored_size: 0,
      encoding: ARCHIVE_ENCODING,
    });
    await parts.blobs.write(blobId, encoded);
    await parts.repository.markStored(userId, sha256Hex(body), blobId, encoded.length);
  };

  beforeEach(async () => {
    parts = await archiveParts();
    reads = new PageReads(parts.repository, parts.blobs, { maxBodyBytes: 10 * 1024 * 1024 });
  });
  afterEach(async () => parts.close());

  it('loads a page with its bodies, inline or in the blob store, for its tenant only', async () => {
    const body = html('body');
    const rendered = html('rendered');
    await storeBlob('u1', rendered, 'renderedblob1');
    const record = pageRecord('u1', 'j1', 'a', body, { rendered_sha256: sha256Hex(rendered), rendered_bytes: rendered.length });
    await keepInline(record, body);
    const page = await reads.load('u1', 'j1', 'a');
    expect(page?.record).toEqual(record);
    expect(page?.body.equals(body)).toBe(true);
    expect(page?.rendered?.equals(rendered)).toBe(true);
    expect(await reads.record('u2', 'j1', 'a')).toBeNull();
    expect(await reads.load('u2', 'j1', 'a')).toBeNull();
    expect(await reads.body('u2', sha256Hex(body))).toBeNull();
  });

  it('a page whose body is gone is null; a failed WARC record loads with an empty body', async () => {
    const body = html('gone');
    await storeBlob('u1', body, 'goneblob01');
    await parts.repository.insertPage(pageRecord('u1', 'j1', 'a', body));
    await parts.blobs.delete('goneblob01');
    expect(await reads.body('u1', sha256Hex(body))).toBeNull();
    expect(await reads.load('u1', 'j1', 'a')).toBeNull();
    const failure = { category: 'invalid_request' as const, message: 'not a WARC response' };
    await parts.repository.insertPage(pageRecord('u1', 'j1', 'b', Buffer.alloc(0), { body_sha256: '', failure, origin: 'warc' }));
    expect(await reads.load('u1', 'j1', 'b')).toMatchObject({ record: { failure }, body: Buffer.alloc(0), rendered: null });
  });

  it('latest: the newest usable copy (2xx, not a failure) of any of the URLs, fetched since a time, of some jobs', async () => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes)).toISOString();
    const url = 'https://shop.test/p';
    const body = html('latest');
    await keepInline(pageRecord('u1', 'j1', 'a', body, { url, fetched_at: at(1) }), body);
    await keepInline(pageRecord('u1', 'j2', 'a', body, { url, fetched_at: at(2), status: 500 }), body);
    await keepInline(
      pageRecord('u1', 'j3', 'a', body, { url, fetched_at: at(3), failure: { category: 'http_error', message: 'x' } }),
      body,
    );
    await keepInline(pageRecord('u1', 'j4', 'a', body, { url: 'https://shop.test/canonical', fetched_at: at(4) }), body);
    expect((await reads.latest('u1', [url, url]))?._id).toBe('j1:a');
    expect((await reads.latest('u1', [url, 'https://shop.test/canonical']))?._id).toBe('j4:a');
    expect(await reads.latest('u1', [url], at(2))).toBeNull();
    expect(await reads.latest('u1', [url], null, [])).toBeNull();
    expect(await reads.latest('u1', [url], null, ['j2', 'j3'])).toBeNull();
    expect((await reads.latest('u1', [url], null, ['j1']))?._id).toBe('j1:a');
    expect(await reads.latest('u2', [url])).toBeNull();
  });

  it("counts and lists a job's pages", async () => {
    for (const key of ['b', 'a']) await parts.repository.insertPage(pageRecord('u1', 'j1', key, html(key)));
    await parts.repository.insertPage(pageRecord('u1', 'j2', 'c', html('c')));
    expect(await reads.countJobPages('u1', 'j1')).toBe(2);
    const keys: string[] = [];
    for await (const record of reads.jobPages('u1', 'j1')) keys.push(record.key);
    expect(keys).toEqual(['a', 'b']);
  });
});
