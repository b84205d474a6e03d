/** How long a new body's bytes may wait before they are added to its tenant's usage record. */
export const USAGE_FLUSH_MS = 1000;

type Write = (userId: string, storedBytes: number, blobs: number) => Promise<void>;

/**
 * The tenants' usage changes of new bodies, added to `archive_usage` once per USAGE_FLUSH_MS for all the
 * bodies of that time (docs/archive.md "How long"): a write per tenant and second, not one per page. A
 * flush that fails puts its changes back for the next one. A process killed with changes pending loses them
 * (at most USAGE_FLUSH_MS of its new bodies): the tenant's usage then reads that much low, so the cap lets it
 * keep that much more.
 */
export class UsageTally {
  private readonly pending = new Map<string, { bytes: number; blobs: number }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly write: Write,
    private readonly delayMs = USAGE_FLUSH_MS,
  ) {}

  add(userId: string, bytes: number, blobs: number): void {
    const known = this.pending.get(userId);
    if (known) {
      known.bytes += bytes;
      known.blobs += blobs;
    } else this.pending.set(userId, { bytes, blobs });
    this.schedule();
  }

  /** Writes the pending changes (of one tenant, or all). */
  async flush(userId?: string): Promise<void> {
    const tenants = userId === undefined ? [...this.pending.keys()] : this.pending.has(userId) ? [userId] : [];
    for (const tenant of tenants) {
      const change = this.pending.get(tenant)!;
      this.pending.delete(tenant);
      try {
        await this.write(tenant, change.bytes, change.blobs);
      } catch (error) {
        this.add(tenant, change.bytes, change.blobs);
        throw error;
      }
    }
  }

  /** Drops a tenant's pending changes (its usage record is being deleted). */
  forget(userId: string): void {
    this.pending.delete(userId);
  }

  get size(): number {
    return this.pending.size;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // A failed flush keeps its changes and tries again after the delay.
      this.flush().catch(() => this.schedule());
    }, this.delayMs);
    this.timer.unref();
  }
}
