import { archiveParts, html, pageRecord, type ArchiveParts } from '../../../test/support/archive-parts';
import { sha256Hex } from './archive-codec';
import { BodyReferences } from './body-references';
import { TenantUsage } from './tenant-usage';

describe('BodyReferences', () => {
  let parts: ArchiveParts;
  let usage: TenantUsage;
  let written: number[];
  const referencesWith = (inlineMaxBytes?: number) =>
    new BodyReferences(parts.repository, parts.blobs, usage, { written: (bytes) => written.push(bytes) }, { inlineMaxBytes });
  const bodyOf = (data: Buffer) => [{ sha256: sha256Hex(data), data }];

  beforeEach(async () => {
    parts = await archiveParts();
    usage = new TenantUsage(parts.repository, { maxBytesPerTenant: 0 });
    written = [];
  });
  afterEach(async () => {
    usage.stop();
    await parts.close();
  });

  it('creates an inline body with its page in one command, once per tenant; a body known stored is only touched', async () => {
    const bodies = referencesWith();
    const keepPages = jest.spyOn(parts.repository, 'keepPages');
    const body = html('inline');
    expect(await bodies.keep('u1', pageRecord('u1', 'j1', 'a', body), bodyOf(body))).toBe(true);
    expect(await bodies.keep('u1', pageRecord('u1', 'j1', 'b', body), bodyOf(body))).toBe(false);
    expect(keepPages).toHaveBeenCalledTimes(2);
    expect(keepPages.mock.calls[1][0][0].bodies).toEqual([{ sha256: sha256Hex(body), create: null }]);
    expect(await bodies.keep('u2', pageRecord('u2', 'j2', 'a', body), bodyOf(body))).toBe(true);
    expect(parts.blobWrites).toEqual([]);
    expect(written).toHaveLength(2);
    expect(await usage.usage('u1')).toEqual({ stored_bytes: written[0], blobs: 1 });
    expect(await parts.repository.blob('u1', sha256Hex(body))).toMatchObject({ kind: 'body', stored: true, stored_size: written[0] });
  });

  it('creates a known body deleted behind its back again, with its bytes, in a second command', async () => {
    const bodies = referencesWith();
    const keepPages = jest.spyOn(parts.repository, 'keepPages');
    const body = html('deleted');
    await bodies.keep('u1', pageRecord('u1', 'j1', 'a', body), bodyOf(body));
    await parts.repository.deleteBlobIfUntouched((await parts.repository.blob('u1', sha256Hex(body)))!);
    expect(await bodies.keep('u1', pageRecord('u1', 'j1', 'b', body), bodyOf(body))).toBe(true);
    expect(keepPages).toHaveBeenCalledTimes(3);
    expect(await parts.repository.blob('u1', sha256Hex(body))).toMatchObject({ stored: true });
  });

  it('a body forgotten (deleted by this process) is compressed and created again at once', async () => {
    const bodies = referencesWith();
    const keepPages = jest.spyOn(parts.repository, 'keepPages');
    const body = html('forgotten');
    await bodies.keep('u1', pageRecord('u1', 'j1', 'a', body), bodyOf(body));
    await parts.repository.deleteBlobIfUntouched((await parts.repository.blob('u1', sha256Hex(body)))!);
    bodies.forget('u1', sha256Hex(body));
    expect(await bodies.keep('u1', pageRecord('u1', 'j1', 'b', body), bodyOf(body))).toBe(true);
    expect(keepPages).toHaveBeenCalledTimes(2);
  });

  it('stores a body above the inline size in the blob store once, however many pages bring it at once', async () => {
    const bodies = referencesWith(0);
    const body = html('blob');
    const fresh = await Promise.all(['a', 'b', 'c'].map((key) => bodies.keep('u1', pageRecord('u1', 'j1', key, body), bodyOf(body))));
    expect(fresh.filter(Boolean)).toHaveLength(1);
    expect(parts.blobWrites).toHaveLength(1);
    expect(await parts.repository.blob('u1', sha256Hex(body))).toMatchObject({ stored: true, blob_id: parts.blobWrites[0] });
    expect(written).toHaveLength(1);
    // Known stored now: a later page only touches it.
    expect(await bodies.keep('u1', pageRecord('u1', 'j1', 'd', body), bodyOf(body))).toBe(false);
    expect(parts.blobWrites).toHaveLength(1);
  });

  it('retouch: a stored body gets a new touch token; a body that is gone is not referenced', async () => {
    const bodies = referencesWith();
    const body = html('again');
    await bodies.keep('u1', pageRecord('u1', 'j1', 'a', body), bodyOf(body));
    const before = await parts.repository.blob('u1', sha256Hex(body));
    expect(await bodies.retouch('u1', sha256Hex(body))).toBe(true);
    expect((await parts.repository.blob('u1', sha256Hex(body)))?.touch).not.toBe(before?.touch);
    expect(await bodies.retouch('u1', sha256Hex(html('never kept')))).toBe(false);
  });
});
