/**
 * Two page workers (two processes: each its own DuplicateIndex, so nothing known in memory is shared) finish near-duplicate
 * pages at once (docs/dedup.md "Where the index lives"). Every store operation of either check waits for its turn, and
 * a schedule says whose operation runs next, each to its end before the next starts: every interleaving of the two checks'
 * operations is run, and each must end with exactly one original and the other page its copy, whoever wins; a later page
 * and a run of either page again (a takeover: another process) agree with it.
 */
import { DuplicateIndex } from '@app/dedup';
import type { Collection, CollectionSpec, Doc, DocumentStore } from '@app/storage';

type Party = 'A' | 'B';

/** Lets one party's store operation run at a time, in the order a schedule gives. */
class Turns {
  private readonly waiting = new Map<Party, () => void>();
  private readonly arrivals = new Map<Party, () => void>();

  /** Resolves when the party's next operation may run (its check is then paused at it). */
  async turn(party: Party): Promise<void> {
    await new Promise<void>((go) => {
      this.waiting.set(party, go);
      this.arrivals.get(party)?.();
    });
  }

  /** Waits until the party is at an operation (true) or its check ended (false). */
  arrived(party: Party, ended: Promise<unknown>): Promise<boolean> {
    if (this.waiting.has(party)) return Promise.resolve(true);
    return Promise.race([
      new Promise<boolean>((resolve) => this.arrivals.set(party, () => resolve(true))),
      ended.then(
        () => false,
        () => false,
      ),
    ]);
  }

  release(party: Party): void {
    const go = this.waiting.get(party)!;
    this.waiting.delete(party);
    this.arrivals.delete(party);
    go();
  }
}

const GATED = new Set(['insertOne', 'insertMany', 'find', 'findOne', 'findOneAndUpdate', 'updateMany', 'deleteMany', 'count']);

/** The store as one party sees it: each collection operation waits for the party's turn. */
function gated(store: DocumentStore, party: Party, turns: Turns): DocumentStore {
  return {
    kind: store.kind,
    ping: () => store.ping(),
    close: async () => undefined,
    async collection<T extends Doc>(spec: CollectionSpec): Promise<Collection<T>> {
      const real = await store.collection<T>(spec);
      return new Proxy(real, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (typeof prop !== 'string' || !GATED.has(prop) || typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            await turns.turn(party);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    },
  };
}

const words = Array.from({ length: 120 }, (_, i) => `term${i}`).join(' ');
const text = (stamp: string) => `${words} updated ${stamp}`;

export function duplicateRaceContract(
  name: string,
  makeStore: () => Promise<DocumentStore>,
  dispose: (s: DocumentStore) => Promise<void>,
  steps: number,
): void {
  describe(`DuplicateIndex: two workers finish near-duplicates at once (${name})`, () => {
    let store: DocumentStore;
    beforeAll(async () => {
      store = await makeStore();
    });
    afterAll(async () => {
      await dispose(store);
    });

    it(`ends with exactly one original in every interleaving of their store operations (schedules of ${steps} choices)`, async () => {
      const seen = new Set<string>();
      const winners = new Set<string>();
      for (let schedule = 0; schedule < 2 ** steps; schedule++) {
        const job = { id: `race-${name}-${schedule}`, userId: 'u1' };
        const turns = new Turns();
        const pages = {
          A: { key: 'a', url: 'https://s.example/a', text: text('2026-12-01') },
          B: { key: 'b', url: 'https://s.example/b?sort=price', text: text('2026-12-02') },
        };
        const checks = {
          A: new DuplicateIndex(gated(store, 'A', turns)).check(job, pages.A, 'near'),
          B: new DuplicateIndex(gated(store, 'B', turns)).check(job, pages.B, 'near'),
        };
        const ran: Party[] = [];
        let step = 0;
        for (;;) {
          const wanted: Party = step < steps && (schedule >> step) & 1 ? 'B' : 'A';
          const other: Party = wanted === 'A' ? 'B' : 'A';
          step++;
          const next = (await turns.arrived(wanted, checks[wanted])) ? wanted : (await turns.arrived(other, checks[other])) ? other : null;
          if (!next) break;
          ran.push(next);
          turns.release(next);
          // The operation runs to its end (the party is at its next one, or done) before another starts.
          await turns.arrived(next, checks[next]);
        }
        seen.add(ran.join(''));
        const [a, b] = await Promise.all([checks.A, checks.B]);
        const context = `schedule ${ran.join('')}: ${JSON.stringify({ a, b })}`;
        expect([a, b].filter((v) => v === null)).toHaveLength(1);
        const original = a === null ? pages.A : pages.B;
        const copy = a === null ? b : a;
        if (copy?.original.key !== original.key) throw new Error(context);
        expect(copy).toMatchObject({ original: { key: original.key, url: original.url }, reason: 'near' });
        winners.add(original.key);
        // Another process after a takeover: each page's run again, and a later copy, agree.
        const later = new DuplicateIndex(store);
        expect(await later.check(job, pages.A, 'near')).toEqual(a);
        expect(await new DuplicateIndex(store).check(job, pages.B, 'near')).toEqual(b);
        expect(await later.check(job, { key: 'c', url: 'https://s.example/c', text: text('2026-12-03') }, 'near')).toMatchObject({
          original: { key: original.key },
        });
        await later.forget(job.id);
      }
      // Both checks really overlapped in many ways, and either page could win.
      expect(seen.size).toBeGreaterThan(10);
      expect([...winners].sort()).toEqual(['a', 'b']);
      // Hundreds of schedules, each a handful of store operations run one at a time: ~30 s on a quiet machine,
      // several times that beside the other suites; no wait in it is timed.
    }, 300_000);
  });
}
