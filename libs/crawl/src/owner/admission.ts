import type { CrawlEntry } from '../crawl.types';
import { toWindowEntry, unadmittedTicket } from './crawl-entry';
import type { CrawlLease } from './crawl-lease';
import type { CrawlRun } from './crawl-run';
import type { Frontier } from './frontier';
import type { WindowEntry } from './frontier-window';
import type { InFlightPages } from './in-flight';
import type { JobCounters } from './job-counters';
import type { RobotsGate } from './robots-gate';
import type { TicketBook } from './ticket-book';

/** Where admission claims its pages: the store (CrawlEntryStore.claim) or the owner's claim batch (claim-batch.ts). */
export interface AdmissionStore {
  claim(id: string, epoch: number, set: Partial<CrawlEntry>): Promise<CrawlEntry | true | 'ticket-taken' | null>;
}

/** Admission's collaborators, by name. */
export interface AdmissionParts {
  store: AdmissionStore;
  lease: Pick<CrawlLease, 'confirm'>;
  tickets: TicketBook;
  robots: Pick<RobotsGate, 'verdict'>;
  frontier: Pick<Frontier, 'skipPending' | 'putBack' | 'dropUnadmitted' | 'rescan'>;
  inFlight: InFlightPages;
  counters: Pick<JobCounters, 'recountQueued'>;
}

/**
 * Admission of one page (docs/crawl.md "Which URLs are crawled"): robots.txt, then an admission ticket
 * (max_pages, exact), then the claim in the store (pending → running under this owner's epoch). Pages that
 * were in flight under an earlier owner are adopted and handed out first. When the tickets run out the
 * admission closes: the entries without one leave the window and are closed as skipped (`max_pages`) when
 * the crawl ends; admitted pages still pending (retries, pauses) go on.
 */
export class Admission {
  private readonly adopted: WindowEntry[] = [];
  /** The step of the admission under way (null: none), for a stalled owner's log line. */
  step: 'robots' | 'ticket' | 'claim' | null = null;

  private readonly store: AdmissionParts['store'];
  private readonly lease: AdmissionParts['lease'];
  private readonly tickets: AdmissionParts['tickets'];
  private readonly robots: AdmissionParts['robots'];
  private readonly frontier: AdmissionParts['frontier'];
  private readonly inFlight: AdmissionParts['inFlight'];
  private readonly counters: AdmissionParts['counters'];

  constructor(
    private readonly run: CrawlRun,
    parts: AdmissionParts,
  ) {
    this.store = parts.store;
    this.lease = parts.lease;
    this.tickets = parts.tickets;
    this.robots = parts.robots;
    this.frontier = parts.frontier;
    this.inFlight = parts.inFlight;
    this.counters = parts.counters;
  }

  /** Takeover: the tickets reserved (`admitted`) and those the entries hold; closes admission if none is left. */
  restoreTickets(admitted: number, inUse: ReadonlySet<number>): void {
    if (this.tickets.restore(admitted, inUse)) this.close();
  }

  /** A page that was in flight under the previous owner: its task is awaited again (re-sent under the same id). */
  adopt(entry: CrawlEntry): void {
    const w = toWindowEntry(entry);
    w.outcomeMayBeStored = true;
    w.mayBeAnnounced = true;
    this.inFlight.add(w);
    this.adopted.push(w);
  }

  /** The next adopted page to hand to Crawlee, if any is left. */
  takeAdopted(): WindowEntry | undefined {
    return this.adopted.shift();
  }

  get hasAdopted(): boolean {
    return this.adopted.length > 0;
  }

  /** Whether admission closed for good (every ticket out). */
  get closed(): boolean {
    return this.tickets.full;
  }

  /** Admits the entry: returns it when it may be dispatched, null when it was skipped, deferred or refused. */
  async admit(entry: WindowEntry): Promise<WindowEntry | null> {
    try {
      return await this.admitNow(entry);
    } finally {
      this.step = null;
    }
  }

  private async admitNow(entry: WindowEntry): Promise<WindowEntry | null> {
    this.step = 'robots';
    const verdict = await this.robots.verdict(entry);
    if (verdict.kind === 'skip') {
      await this.frontier.skipPending(entry, 'robots', verdict.why);
      return null;
    }
    if (verdict.kind === 'defer') {
      entry.robotsDeferrals++;
      entry.notBefore = verdict.notBefore;
      this.frontier.putBack(entry);
      return null;
    }
    if (entry.extract && entry.ticket === null) {
      this.step = 'ticket';
      const ticket = await this.tickets.take();
      if (ticket === null) {
        // No ticket: every one is out, or the store refused the reservation because this owner is stale.
        if (await this.lease.confirm()) this.close();
        return null;
      }
      entry.ticket = ticket;
    }
    this.step = 'claim';
    const claimed = await this.store.claim(entry.id, this.run.epoch, {
      ticket: entry.ticket ?? unadmittedTicket(entry.key),
      admitted: entry.ticket !== null,
      dispatch: entry.dispatch,
      not_before: '',
    });
    if (claimed === 'ticket-taken') {
      // Another owner's page holds this ticket: this owner is stale.
      this.run.halt('lease-lost');
      return null;
    }
    if (!claimed) {
      // No longer pending (closed as a redirect target's duplicate, or by another owner): its ticket is free again,
      // unless the page is in flight here (this was a copy of it): the ticket is the page's.
      if (entry.ticket !== null && !this.inFlight.has(entry.id) && this.tickets.giveBack(entry.ticket)) this.frontier.rescan();
      return null;
    }
    // The claim answers true for a page running under this owner's epoch (a claim asked again after a lost answer):
    // a second copy of a page already in flight here is never dispatched beside it.
    if (!this.inFlight.add(entry)) {
      this.run.log.warn({ url: entry.url }, 'a page already in flight was offered for admission again; the copy is dropped');
      return null;
    }
    return entry;
  }

  /** Every ticket is out: admission closes, the unadmitted entries leave the window, `urls_queued` is recounted. */
  private close(): void {
    if (!this.tickets.close()) return;
    this.frontier.dropUnadmitted();
    this.counters
      .recountQueued()
      .catch((error: unknown) => this.run.log.warn({ err: error }, 'urls_queued could not be recounted; the end of the crawl recounts it'));
  }
}
