import { WriteBatch, type WriteBatchLimits } from './write-batch';

/**
 * The generic write batch (the archive's pages and a crawler's outcomes use it; archive-write-batch.spec.ts covers
 * its linger with pages). Fake timers: a write takes 5 ms.
 */
describe('WriteBatch', () => {
  let writes: string[][];
  let fail: Error | null;
  const limits: WriteBatchLimits = { max: 3, maxWeight: 10, minLingerMs: 20, maxLingerMs: 250 };
  const batchOf = (l: WriteBatchLimits = limits) =>
    new WriteBatch<string, string>(
      async (items) => {
        writes.push(items);
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (fail) throw fail;
        return items.map((i) => i.toUpperCase());
      },
      l,
      (item) => item.length,
      () => Date.now(),
    );

  beforeEach(() => {
    jest.useFakeTimers();
    writes = [];
    fail = null;
  });
  afterEach(() => jest.useRealTimers());

  it('writes an item alone at once, and items added together in one write, each with its own result', async () => {
    const batch = batchOf();
    await expect(Promise.all([batch.add('a'), jest.advanceTimersByTimeAsync(5)])).resolves.toEqual(['A', undefined]);
    const together = Promise.all([batch.add('b'), batch.add('c')]);
    await jest.advanceTimersByTimeAsync(300);
    await expect(together).resolves.toEqual(['B', 'C']);
    expect(writes).toEqual([['a'], ['b', 'c']]);
  });

  it('writes at `max` items or at `maxWeight` without a linger; items coming meanwhile form the next batch', async () => {
    const batch = batchOf();
    const first = Promise.all(['a', 'b', 'c'].map((i) => batch.add(i)));
    await jest.advanceTimersByTimeAsync(0);
    expect(writes).toEqual([['a', 'b', 'c']]);
    const next = batch.add('d');
    await jest.advanceTimersByTimeAsync(300);
    await expect(Promise.all([first, next])).resolves.toEqual([['A', 'B', 'C'], 'D']);
    expect(writes).toEqual([['a', 'b', 'c'], ['d']]);
    const weighed = batchOf({ ...limits, max: 10 });
    writes = [];
    const light = [weighed.add('ab'), weighed.add('cd')];
    await jest.advanceTimersByTimeAsync(0);
    expect(writes).toEqual([]); // two light items added together linger for a third
    const heavy = weighed.add('0123456789');
    await jest.advanceTimersByTimeAsync(0);
    expect(writes).toEqual([['ab', 'cd', '0123456789']]);
    await jest.advanceTimersByTimeAsync(5);
    await expect(Promise.all([...light, heavy])).resolves.toEqual(['AB', 'CD', '0123456789']);
  });

  it('has no weight bound unless given one', async () => {
    const batch = batchOf({ max: 3, minLingerMs: 20, maxLingerMs: 250 });
    const both = Promise.all([batch.add('a'.repeat(100)), batch.add('b'.repeat(100))]);
    await jest.advanceTimersByTimeAsync(300);
    await both;
    expect(writes.map((w) => w.length)).toEqual([2]);
  });

  it('rejects every item of a batch whose write failed, and writes the next batch as usual', async () => {
    const batch = batchOf();
    fail = new Error('store down');
    const failed = [batch.add('a'), batch.add('b')].map((p) =>
      p.then(
        () => 'written',
        (error: Error) => error.message,
      ),
    );
    await jest.advanceTimersByTimeAsync(300);
    await expect(Promise.all(failed)).resolves.toEqual(['store down', 'store down']);
    fail = null;
    const next = batch.add('c');
    await jest.advanceTimersByTimeAsync(300);
    await expect(next).resolves.toBe('C');
  });

  it('drain writes what waits now and returns once nothing is written', async () => {
    const batch = batchOf();
    const items = Promise.all([batch.add('a'), batch.add('b')]);
    const drained = batch.drain();
    await jest.advanceTimersByTimeAsync(5);
    await drained;
    expect(batch.size).toBe(0);
    await expect(items).resolves.toEqual(['A', 'B']);
  });
});
