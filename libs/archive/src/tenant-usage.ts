import type { ArchiveRepository } from './archive.repository';
import { UsageTally } from './usage-tally';

/** A tenant's usage, as read for the cap check, is trusted this long (other processes' writes show within it). */
export const USAGE_FRESH_MS = 1000;
const USAGE_KEPT = 10_000;

/** What the tenants' usage reads and writes of the archive's records. */
export type UsageRecords = Pick<ArchiveRepository, 'usageOf' | 'addUsage' | 'dropUsage'>;

/**
 * The tenants' archive usage as this process sees it (docs/archive.md "How long"): the size cap check, and the
 * stored bytes and bodies this process adds and deletes, written to the tenants' usage records once a second
 * (usage-tally.ts).
 */
export class TenantUsage {
  /** Tenants' stored bytes as last read (see overCap). */
  private readonly tenantBytes = new Map<string, { bytes: number; at: number }>();
  /** New bodies' bytes, added to the tenants' usage records once a second (usage-tally.ts). */
  private readonly tally: UsageTally;

  constructor(
    private readonly repository: UsageRecords,
    private readonly settings: { readonly maxBytesPerTenant: number },
    /** Looked up at each call (a spec's fake clock of Date.now applies to an archive made before it). */
    private readonly now: () => number = () => Date.now(),
  ) {
    this.tally = new UsageTally((userId, bytes, blobs) => this.repository.addUsage(userId, bytes, blobs));
  }

  /**
   * Whether the tenant is at or over its cap. Its usage is read at most once per USAGE_FRESH_MS (a read per
   * page was one more store round trip on every page's way); this process's own writes and deletes count at
   * once, other processes' within USAGE_FRESH_MS (docs/archive.md: a tenant may pass the cap by a few pages).
   */
  async overCap(userId: string): Promise<boolean> {
    if (this.settings.maxBytesPerTenant <= 0) return false;
    let known = this.tenantBytes.get(userId);
    if (!known || this.now() - known.at >= USAGE_FRESH_MS) {
      known = { bytes: (await this.repository.usageOf(userId)).stored_bytes, at: this.now() };
      this.tenantBytes.delete(userId);
      this.tenantBytes.set(userId, known);
      if (this.tenantBytes.size > USAGE_KEPT) this.tenantBytes.delete(this.tenantBytes.keys().next().value as string);
    }
    return known.bytes >= this.settings.maxBytesPerTenant;
  }

  /**
   * Bodies this process stored (positive) or deleted (negative): in the tenant's usage record with the next
   * tally, in its cap check at once.
   */
  change(userId: string, storedBytes: number, blobs: number): void {
    this.tally.add(userId, storedBytes, blobs);
    this.counted(userId, storedBytes);
  }

  /** Writes the usage changes not written yet (of one tenant, or all), now. */
  flush(userId?: string): Promise<void> {
    return this.tally.flush(userId);
  }

  /** Stops the tally's timer (at shutdown; a flush after it still writes). */
  stop(): void {
    this.tally.stop();
  }

  /** The tenant's stored bytes and bodies (this process's changes not written yet are written first). */
  async usage(userId: string): Promise<{ stored_bytes: number; blobs: number }> {
    await this.tally.flush(userId);
    return this.repository.usageOf(userId);
  }

  /** Deletes the tenant's usage: its changes not written yet, its usage record, what the cap check knew. */
  async drop(userId: string): Promise<void> {
    this.tally.forget(userId);
    await this.repository.dropUsage(userId);
    this.tenantBytes.delete(userId);
  }

  /** This process's own change of a tenant's stored bytes, for the cap check. */
  private counted(userId: string, bytes: number): void {
    const known = this.tenantBytes.get(userId);
    if (known) known.bytes += bytes;
  }
}
