import { TicketBook } from './ticket-book';

/** A store's reservation counter, as the crawl state keeps it: conditional, never past max. */
function storeCounter(options: { refuse?: () => boolean; loseAnswer?: () => boolean } = {}) {
  const counter = { admitted: 0, calls: 0, inFlight: 0, maxInFlight: 0 };
  const reserve = async (count: number, max: number) => {
    counter.calls++;
    counter.inFlight++;
    counter.maxInFlight = Math.max(counter.maxInFlight, counter.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    counter.inFlight--;
    if (options.refuse?.() || counter.admitted + count > max) return false;
    counter.admitted += count;
    // The store moved the counter, but its answer never reached the owner.
    if (options.loseAnswer?.()) throw new Error('connection reset');
    return true;
  };
  return { counter, reserve };
}

describe('TicketBook', () => {
  it('reserves blocks of 16 and hands out tickets 1..max_pages exactly once', async () => {
    const { counter, reserve } = storeCounter();
    const book = new TicketBook(40, reserve);
    const taken: number[] = [];
    for (;;) {
      const t = await book.take();
      if (t === null) break;
      taken.push(t);
    }
    expect(taken.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(counter.admitted).toBe(40);
    // 16 + 16 + 8: the last block is what is left, never past max_pages; then the store is not even asked.
    expect(counter.calls).toBe(3);
  });

  it('keeps one reservation in flight, however many admissions ask at once', async () => {
    const { counter, reserve } = storeCounter();
    const book = new TicketBook(10, reserve, 4);
    const tickets = await Promise.all(Array.from({ length: 30 }, () => book.take()));
    const granted = tickets.filter((t): t is number => t !== null);
    expect(new Set(granted).size).toBe(10);
    expect(granted.every((t) => t >= 1 && t <= 10)).toBe(true);
    expect(counter.maxInFlight).toBe(1);
    expect(counter.admitted).toBe(10);
  });

  it('answers null when the store refuses (a stale epoch), without reserving', async () => {
    const { counter, reserve } = storeCounter({ refuse: () => true });
    const book = new TicketBook(10, reserve);
    expect(await book.take()).toBeNull();
    expect(counter.admitted).toBe(0);
    expect(book.reservedCount).toBe(0);
  });

  it('a lost reservation answer admits fewer than max_pages, never more', async () => {
    let lose = true;
    const { counter, reserve } = storeCounter({ loseAnswer: () => (lose ? ((lose = false), true) : false) });
    const book = new TicketBook(40, reserve);
    await expect(book.take()).rejects.toThrow('connection reset');
    // The store counts 16 tickets this owner does not know of: it reserves 16 more, then is refused.
    const taken: number[] = [];
    for (;;) {
      const t = await book.take().catch(() => null);
      if (t === null) break;
      taken.push(t);
    }
    expect(counter.admitted).toBe(32);
    expect(taken).toHaveLength(16);
    expect(new Set(taken).size).toBe(taken.length);
  });

  it('a closed book gives no ticket until one is given back, which reopens it', async () => {
    const { reserve } = storeCounter();
    const book = new TicketBook(2, reserve);
    const a = (await book.take())!;
    const b = (await book.take())!;
    expect(await book.take()).toBeNull();
    expect(book.close()).toBe(true);
    expect(book.close()).toBe(false);
    expect(book.full).toBe(true);
    expect(await book.take()).toBeNull();
    expect(book.giveBack(a)).toBe(true);
    expect(book.full).toBe(false);
    expect(await book.take()).toBe(a);
    expect(book.giveBack(b)).toBe(false);
  });

  it('restores a takeover: reserved tickets no entry holds are free again', async () => {
    const { counter, reserve } = storeCounter();
    counter.admitted = 5;
    const book = new TicketBook(5, reserve);
    expect(book.restore(5, new Set([1, 2, 4]))).toBe(false);
    expect([await book.take(), await book.take()].sort()).toEqual([3, 5]);
    expect(await book.take()).toBeNull();
    expect(counter.calls).toBe(0);
    const full = new TicketBook(3, reserve);
    expect(full.restore(3, new Set([1, 2, 3]))).toBe(true);
  });
});
