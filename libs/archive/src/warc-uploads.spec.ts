import { archiveParts, type ArchiveParts } from '../../../test/support/archive-parts';
import { BlobTooLarge } from './blob-store.port';
import { WarcUploads } from './warc-uploads';

async function* chunks(...texts: string[]): AsyncIterable<Buffer> {
  for (const text of texts) yield Buffer.from(text);
}

async function text(source: AsyncIterable<Buffer> | null): Promise<string | null> {
  if (!source) return null;
  const read: Buffer[] = [];
  for await (const chunk of source) read.push(chunk);
  return Buffer.concat(read).toString();
}

describe('WarcUploads', () => {
  let parts: ArchiveParts;
  let uploads: WarcUploads;

  beforeEach(async () => {
    parts = await archiveParts();
    uploads = new WarcUploads(parts.repository, parts.blobs);
  });
  afterEach(async () => parts.close());

  it('stores a file as it streams and reads it back, until it is dropped', async () => {
    const { id, bytes } = await uploads.store('u1', chunks('WARC/1.0', '\r\nrest'), 1000);
    expect(bytes).toBe(14);
    expect(await text(await uploads.open(id))).toBe('WARC/1.0\r\nrest');
    await uploads.drop(id);
    expect(await uploads.open(id)).toBeNull();
    expect(parts.blobDeletes).toEqual([id]);
  });

  it('refuses a file past its size and keeps nothing of it', async () => {
    await expect(uploads.store('u1', chunks('x'.repeat(10), 'y'.repeat(10)), 15)).rejects.toBeInstanceOf(BlobTooLarge);
    expect(await parts.repository.tenantUploads('u1', 10)).toEqual([]);
    expect(parts.blobDeletes).toEqual(parts.blobWrites);
  });

  it("drops a tenant's uploads, and the uploads made before a time", async () => {
    await uploads.store('u1', chunks('one'), 100);
    await uploads.store('u1', chunks('two'), 100);
    const other = await uploads.store('u2', chunks('three'), 100);
    await uploads.dropTenant('u1');
    expect(await parts.repository.tenantUploads('u1', 10)).toEqual([]);
    await uploads.dropBefore(new Date(Date.now() - 60_000).toISOString(), 10);
    expect(await text(await uploads.open(other.id))).toBe('three');
    await uploads.dropBefore(new Date(Date.now() + 60_000).toISOString(), 10);
    expect(await uploads.open(other.id)).toBeNull();
  });
});
