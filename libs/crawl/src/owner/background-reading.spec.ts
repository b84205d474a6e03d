import { BackgroundReading, recordProgress } from './background-reading';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('BackgroundReading: what a seed source reads while the crawl runs', () => {
  it('is settled at once when nothing was started', async () => {
    const reading = new BackgroundReading(() => undefined);
    expect(reading.busy).toBe(false);
    await expect(reading.settled()).resolves.toBeUndefined();
  });

  it('is busy until the work ends, then wakes the actor once', async () => {
    const wakes: string[] = [];
    const work = deferred();
    const reading = new BackgroundReading(() => wakes.push('wake'));
    reading.start(() => work.promise);
    expect(reading.busy).toBe(true);
    work.resolve();
    await reading.settled();
    expect(reading.busy).toBe(false);
    expect(wakes).toEqual(['wake']);
  });

  it("keeps the work's failure for settled(), the crawl's, and still wakes the actor", async () => {
    let woken = 0;
    const reading = new BackgroundReading(() => woken++);
    reading.start(() => Promise.reject(new Error('store down')));
    await expect(reading.settled()).rejects.toThrow('store down');
    expect(reading.busy).toBe(false);
    expect(woken).toBe(1);
  });
});

describe('recordProgress: a fenced progress write', () => {
  const run = () => {
    const halts: string[] = [];
    let stopped = false;
    return {
      halts,
      jobId: 'job_1',
      epoch: 3,
      halt: (why: string) => {
        halts.push(why);
        stopped = true;
      },
      throwIfStopped: () => {
        if (stopped) throw new Error('stopped');
      },
    };
  };

  it('writes the progress under the owner epoch', async () => {
    const r = run();
    const writes: unknown[] = [];
    await recordProgress(
      r,
      { updateState: async (...args: unknown[]) => (writes.push(args), true) },
      {
        list_chunks_done: 4,
      },
    );
    expect(writes).toEqual([['job_1', 3, { $set: { list_chunks_done: 4 } }]]);
    expect(r.halts).toEqual([]);
  });

  it('stops a stale owner when the write is refused', async () => {
    const r = run();
    await expect(recordProgress(r as never, { updateState: async () => false }, { list_chunks_done: 4 })).rejects.toThrow('stopped');
    expect(r.halts).toEqual(['lease-lost']);
  });
});
