/** Admission tickets reserved in the store at a time. */
export const TICKET_BLOCK = 16;

/**
 * Reserves `count` more tickets in the crawl state (a fenced, conditional increment of `admitted`, never
 * past `max`): true when the counter moved; false when fewer than `count` are left or the epoch is stale.
 */
export type ReserveTickets = (count: number, max: number) => Promise<boolean>;

/**
 * The crawl's admission tickets: `max_pages` is exact (docs/crawl.md "max_pages is exact"). A page is
 * admitted only with a ticket 1..max_pages, unique per crawl in the store, so even a stale owner can never
 * admit one page too many. The rules this book keeps:
 * - **One reservation in flight at a time**, so concurrent admissions never reserve past `max_pages`
 *   together.
 * - **The owner numbers its tickets itself**, being the counter's only writer while it holds the lease; the
 *   store's answer is not read back (the MongoDB-wire test server can return one post-image to two
 *   concurrent increments, which once handed one ticket to two pages).
 * - **A reservation whose answer is lost** leaves its tickets unused until a takeover reuses them: the crawl
 *   may then admit fewer than `max_pages`, never more.
 * - Free tickets are handed out last-in first-out; a ticket given back (its page was skipped after all) is
 *   reused, and reopens a book that was full.
 */
export class TicketBook {
  private readonly free: number[] = [];
  /** The crawl state's `admitted` counter as this owner has moved it: tickets 1..this are reserved. */
  private reserved = 0;
  private reserving?: Promise<boolean>;
  private closed = false;

  constructor(
    private readonly maxPages: number,
    private readonly reserveInStore: ReserveTickets,
    private readonly block = TICKET_BLOCK,
  ) {}

  /**
   * Takeover: `admitted` tickets are reserved in the store; those no entry holds (`inUse` says which are
   * held) are free again. Returns whether every ticket is out already.
   */
  restore(admitted: number, inUse: ReadonlySet<number>): boolean {
    this.free.length = 0;
    for (let t = admitted; t >= 1; t--) if (!inUse.has(t)) this.free.push(t);
    this.reserved = admitted;
    return admitted >= this.maxPages && this.free.length === 0;
  }

  /** Every ticket is out: no new page may be admitted (until one is given back). */
  get full(): boolean {
    return this.closed;
  }

  get reservedCount(): number {
    return this.reserved;
  }

  get freeCount(): number {
    return this.free.length;
  }

  /**
   * A ticket for a page: a free one, else a new block reserved in the store. Null when none is left: every
   * ticket is reserved (max_pages), or the store refused the reservation (a stale epoch, or a lost answer
   * that moved the counter): the caller tells the two apart by its lease.
   */
  async take(): Promise<number | null> {
    for (;;) {
      const ticket = this.free.pop();
      if (ticket !== undefined) return ticket;
      if (this.closed) return null;
      this.reserving ??= this.reserveBlock().finally(() => (this.reserving = undefined));
      if (!(await this.reserving)) return this.free.pop() ?? null;
    }
  }

  /** No ticket is left: the book is full until one is given back. Returns whether it was open. */
  close(): boolean {
    const wasOpen = !this.closed;
    this.closed = true;
    return wasOpen;
  }

  /** A ticket whose page was not kept after all. Returns true when this reopened a full book. */
  giveBack(ticket: number): boolean {
    this.free.push(ticket);
    if (!this.closed) return false;
    this.closed = false;
    return true;
  }

  private async reserveBlock(): Promise<boolean> {
    const count = Math.min(this.block, this.maxPages - this.reserved);
    if (count <= 0 || !(await this.reserveInStore(count, this.maxPages))) return false;
    for (let t = this.reserved + count; t > this.reserved; t--) this.free.push(t);
    this.reserved += count;
    return true;
  }
}
