import { archiveParts, type ArchiveParts } from '../../../test/support/archive-parts';
import { TenantUsage, USAGE_FRESH_MS } from './tenant-usage';

describe('TenantUsage', () => {
  let parts: ArchiveParts;
  let usage: TenantUsage | undefined;
  let t: number;
  const usageWith = (maxBytesPerTenant: number) => (usage = new TenantUsage(parts.repository, { maxBytesPerTenant }, () => t));

  beforeEach(async () => {
    parts = await archiveParts();
    t = 0;
  });
  afterEach(async () => {
    usage?.stop();
    usage = undefined;
    await parts.close();
  });

  it('never reads the usage without a cap', async () => {
    const reads = jest.spyOn(parts.repository, 'usageOf');
    await parts.repository.addUsage('u1', 10_000, 1);
    expect(await usageWith(0).overCap('u1')).toBe(false);
    expect(reads).not.toHaveBeenCalled();
  });

  it("reads a tenant's usage once per USAGE_FRESH_MS: this process's changes count at once, other processes' within it", async () => {
    const cap = usageWith(1000);
    const reads = jest.spyOn(parts.repository, 'usageOf');
    await parts.repository.addUsage('u1', 900, 1);
    expect(await cap.overCap('u1')).toBe(false);
    cap.change('u1', 100, 1); // a body this process stored
    expect(await cap.overCap('u1')).toBe(true);
    cap.change('u1', -200, -1); // one it deleted
    expect(await cap.overCap('u1')).toBe(false);
    await parts.repository.addUsage('u1', 500, 1); // another process's
    t = USAGE_FRESH_MS - 1;
    expect(await cap.overCap('u1')).toBe(false);
    expect(reads).toHaveBeenCalledTimes(1);
    t = USAGE_FRESH_MS;
    expect(await cap.overCap('u1')).toBe(true);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it("writes the changes to the usage records: a tenant's before its usage is read, all at a flush", async () => {
    const tenants = usageWith(0);
    tenants.change('u1', 300, 1);
    tenants.change('u1', 20, 1);
    tenants.change('u2', 50, 1);
    expect(await tenants.usage('u1')).toEqual({ stored_bytes: 320, blobs: 2 });
    await tenants.flush();
    expect(await parts.repository.usageOf('u2')).toEqual({ stored_bytes: 50, blobs: 1 });
  });

  it('drop forgets the changes not written, the usage record and what the cap check knew', async () => {
    const cap = usageWith(1000);
    await parts.repository.addUsage('u1', 2000, 2);
    expect(await cap.overCap('u1')).toBe(true);
    cap.change('u1', 100, 1);
    await cap.drop('u1');
    // Read again at once (the same instant): nothing is left.
    expect(await cap.overCap('u1')).toBe(false);
    await cap.flush();
    expect(await parts.repository.usageOf('u1')).toEqual({ stored_bytes: 0, blobs: 0 });
  });
});
