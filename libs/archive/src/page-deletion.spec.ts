import { archiveParts, html, pageRecord, type ArchiveParts } from '../../../test/support/archive-parts';
import { sha256Hex } from './archive-codec';
import { BodyReferences } from './body-references';
import { PageDeletion } from './page-deletion';
import { TenantUsage } from './tenant-usage';
import { WarcUploads } from './warc-uploads';

const DAY = 24 * 60 * 60 * 1000;

async function* chunks(text: string): AsyncIterable<Buffer> {
  yield Buffer.from(text);
}

describe('PageDeletion', () => {
  let parts: ArchiveParts;
  let usage: TenantUsage;
  let bodies: BodyReferences;
  let uploads: WarcUploads;
  let deletion: PageDeletion;
  let deleted: number[];
  /** Keeps a page (its body in the blob store, so that its bytes' deletion shows). */
  const keep = (userId: string, jobId: string, key: string, body: Buffer, expiresInMs?: number) =>
    bodies.keep(userId, pageRecord(userId, jobId, key, body, {}, expiresInMs), [{ sha256: sha256Hex(body), data: body }]);
  const storedSize = async (userId: string, body: Buffer) => (await parts.repository.blob(userId, sha256Hex(body)))?.stored_size ?? 0;

  beforeEach(async () => {
    parts = await archiveParts();
    deleted = [];
    usage = new TenantUsage(parts.repository, { maxBytesPerTenant: 0 });
    bodies = new BodyReferences(parts.repository, parts.blobs, usage, { written: () => undefined }, { inlineMaxBytes: 0 });
    uploads = new WarcUploads(parts.repository, parts.blobs);
    deletion = new PageDeletion(
      parts.repository,
      parts.blobs,
      bodies,
      usage,
      uploads,
      { deleted: (bytes) => deleted.push(bytes) },
      { ttlDays: 30 },
    );
  });
  afterEach(async () => {
    usage.stop();
    await parts.close();
  });

  it("deletes a job's pages and the bodies only they referenced, and frees their bytes in the usage at once", async () => {
    const shared = html('shared');
    const own = html('own');
    await keep('u1', 'j1', 'a', shared);
    await keep('u1', 'j1', 'b', own);
    await keep('u1', 'j2', 'c', shared);
    const ownBlob = await parts.repository.blob('u1', sha256Hex(own));
    expect(await deletion.deleteJob('u1', 'j1')).toEqual({ pages: 2, bodies: 1 });
    expect(await parts.repository.countJobPages('u1', 'j1')).toBe(0);
    expect(await parts.repository.blob('u1', sha256Hex(own))).toBeNull();
    expect(parts.blobDeletes).toEqual([ownBlob?.blob_id]);
    expect(deleted).toEqual([ownBlob?.stored_size]);
    expect(await parts.repository.page('u1', 'j2', 'c')).not.toBeNull();
    expect(await parts.repository.usageOf('u1')).toEqual({ stored_bytes: await storedSize('u1', shared), blobs: 1 });
  });

  it('keeps a body referenced again between its read and its delete (the touch token changed)', async () => {
    const body = html('copied');
    await keep('u1', 'j1', 'a', body);
    const record = (await parts.repository.page('u1', 'j1', 'a'))!;
    // A copy of the page references the body after the release read its record, before it deletes it.
    jest.spyOn(parts.repository, 'referenced').mockImplementationOnce(async () => {
      await bodies.retouch('u1', sha256Hex(body));
      return false;
    });
    expect(await deletion.release([record])).toBe(0);
    expect(await parts.repository.blob('u1', sha256Hex(body))).toMatchObject({ stored: true });
    expect(parts.blobDeletes).toEqual([]);
  });

  it('sweeps expired pages, bodies nobody referenced past the retention, and uploads no job read', async () => {
    const expired = html('expired');
    const live = html('live');
    await keep('u1', 'j1', 'old', expired, -1000);
    await keep('u1', 'j1', 'new', live, 365 * DAY);
    // A page write that died half way: a body record nobody references.
    await parts.repository.touchBlob('pages', 'u1', 'orphan', { blob_id: 'orphanblob1', size: 1, stored_size: 0, encoding: 'br' });
    const upload = await uploads.store('u1', chunks('WARC/1.0'), 100);
    // Within the retention only the expired page goes (with its body).
    expect(await deletion.sweep(new Date(), 100)).toEqual({ pages: 1, bodies: 1 });
    expect(await parts.repository.blob('u1', 'orphan')).not.toBeNull();
    // Past the retention and its grace: the orphan and the upload too, never the live page's body.
    expect(await deletion.sweep(new Date(Date.now() + 31 * DAY), 100)).toEqual({ pages: 0, bodies: 1 });
    expect(await parts.repository.blob('u1', 'orphan')).toBeNull();
    expect(await parts.repository.upload(upload.id)).toBeNull();
    expect(await parts.repository.page('u1', 'j1', 'new')).not.toBeNull();
    expect(await parts.repository.blob('u1', sha256Hex(live))).toMatchObject({ stored: true });
  });

  it("deletes everything of a tenant (pages, bodies, uploads, usage) and nothing of another's", async () => {
    const body = html('tenant');
    await keep('u1', 'j1', 'a', body);
    await keep('u2', 'j2', 'a', body);
    await parts.repository.touchBlob('pages', 'u1', 'orphan', { blob_id: 'orphanblob2', size: 1, stored_size: 0, encoding: 'br' });
    await uploads.store('u1', chunks('WARC/1.0'), 100);
    await usage.flush();
    expect(await deletion.deleteTenant('u1')).toEqual({ pages: 1, bodies: 2 });
    expect(await parts.repository.tenantPages('u1', 10)).toEqual([]);
    expect(await parts.repository.tenantBlobs('u1', 10)).toEqual([]);
    expect(await parts.repository.tenantUploads('u1', 10)).toEqual([]);
    await usage.flush();
    expect(await parts.repository.usageOf('u1')).toEqual({ stored_bytes: 0, blobs: 0 });
    expect(await parts.repository.page('u2', 'j2', 'a')).not.toBeNull();
    expect(await parts.repository.usageOf('u2')).toEqual({ stored_bytes: await storedSize('u2', body), blobs: 1 });
  });
});
