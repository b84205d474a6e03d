import { DuplicateKeyError } from '@app/core';
import type { CrawlEntryStore } from '../store/crawl-entry-store';
import type { CrawlEntry } from '../crawl.types';

interface PendingClaim {
  id: string;
  epoch: number;
  set: Partial<CrawlEntry>;
  resolve: (claimed: true | 'ticket-taken' | null) => void;
  reject: (error: unknown) => void;
}

/**
 * Admission's claims (pending → running for this owner, docs/crawl.md "Which URLs are crawled"), written
 * together: the claims asked for in one turn of the event loop, and those asked for while a write is under way,
 * go in one request (CrawlEntryStore.claimMany). When a commit batch frees several of Crawlee's slots at once,
 * their next pages are admitted together, so a page's claim costs a share of one request, not one of its own.
 * Each claim answers as CrawlEntryStore.claim does (claimed, no longer pending, or a ticket another owner holds);
 * a store error fails every claim of the write (each page is then not dispatched, as with one claim).
 */
export class ClaimBatch {
  private pending: PendingClaim[] = [];
  private scheduled = false;
  private writing = false;

  constructor(private readonly store: Pick<CrawlEntryStore, 'claimMany'>) {}

  claim(id: string, epoch: number, set: Partial<CrawlEntry>): Promise<true | 'ticket-taken' | null> {
    return new Promise((resolve, reject) => {
      this.pending.push({ id, epoch, set, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.write();
    });
  }

  private async write(): Promise<void> {
    if (this.writing || this.pending.length === 0) return;
    this.writing = true;
    // One epoch per request (an owner has one; a batch never mixes two).
    const epoch = this.pending[0].epoch;
    const batch = this.pending.filter((p) => p.epoch === epoch);
    this.pending = this.pending.filter((p) => p.epoch !== epoch);
    try {
      const claimed = await this.store.claimMany(
        epoch,
        batch.map((p) => ({ id: p.id, set: p.set })),
      );
      batch.forEach((p, i) => p.resolve(claimed[i] ? true : null));
    } catch (error) {
      if (error instanceof DuplicateKeyError) for (const p of batch) p.resolve('ticket-taken');
      else for (const p of batch) p.reject(error);
    } finally {
      this.writing = false;
      this.schedule();
    }
  }
}
