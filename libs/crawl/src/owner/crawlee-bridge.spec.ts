import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import type { Admission } from './admission';
import { CrawleeBridge, type BridgeParts } from './crawlee-bridge';
import { Frontier } from './frontier';
import type { WindowEntry } from './frontier-window';
import { HostSchedule } from './host-schedule';
import { InFlightPages } from './in-flight';

/**
 * The bridge's answers to Crawlee's pool about the frontier (isEmpty, isFinished), on the embedded store. Crawlee asks
 * isFinished when no task of its pool runs, yet a task may start while the answer reads the store (the pool's timer
 * does not wait for it): the last specs ask it so.
 */
describe('CrawleeBridge', () => {
  let f: OwnerFixture;
  let frontier: Frontier;
  let bridge: CrawleeBridge;
  let inFlight: InFlightPages;
  /** What admission does with an entry (the default admits it: in flight). */
  let admit: (entry: WindowEntry) => Promise<WindowEntry | null>;

  beforeEach(async () => {
    f = await ownerFixture();
    const hosts = new HostSchedule({ delayMs: 0, minIntervalMs: 0, maxConcurrency: 4 });
    inFlight = new InFlightPages(hosts);
    admit = async (entry) => {
      inFlight.add(entry);
      return entry;
    };
    frontier = new Frontier(f.run, f.repository, inFlight, {
      admissionClosed: () => false,
      onWindowEntry: () => undefined,
      onQueued: () => undefined,
    });
    await frontier.restore(0);
    const parts: BridgeParts = {
      lease: { holds: async () => true },
      frontier,
      admission: { hasAdopted: false, takeAdopted: () => undefined, admit: (e: WindowEntry) => admit(e) } as unknown as Admission,
      hosts,
      inFlight,
      counters: { budgetStopped: false },
      // Neither is reached by isEmpty and isFinished.
      dispatcher: { dispatch: () => Promise.reject(new Error('not in this spec')) },
      committer: {} as BridgeParts['committer'],
      seeding: { busy: false },
    };
    bridge = new CrawleeBridge(f.run, parts, { events: undefined as never, hostMaxStallMs: 0 });
  });
  afterEach(() => f.close());

  it('an idle owner whose window holds only waiting entries finds at once the pending ones an earlier owner stored behind it', async () => {
    const waiting = await f.pending('/retry-later', { not_before: new Date(Date.now() + 3_600_000).toISOString() });
    await frontier.refill();
    // An earlier owner's late write (its page committed after this owner read the store), under a seq this owner had passed.
    const late = await f.pending('/late', { seq: waiting.seq - 1 });
    expect(await bridge.isEmpty()).toBe(true);
    expect(await bridge.isFinished()).toBe(false);
    // Found now, not when the waiting entry comes due an hour later.
    expect(await bridge.isEmpty()).toBe(false);
    expect(frontier.next(Date.now(), () => true)?.id).toBe(late.id);
  });

  it('finishes when the window and the store hold no pending entry, and not while one is stored behind the window', async () => {
    await frontier.refill();
    const late = await f.pending('/late', { seq: 0 });
    expect(await bridge.isFinished()).toBe(false); // the last look before the end finds it
    const taken = frontier.next(Date.now(), () => true);
    expect(taken?.id).toBe(late.id);
    expect(await bridge.isFinished()).toBe(false); // being admitted
    await f.repository.entries.skipPending(late.id, { error_category: 'robots' });
    frontier.release(taken!);
    expect(await bridge.isFinished()).toBe(true);
  });

  it("an owner with only waiting entries arms its own wake for the first one due (Crawlee's timer may be held by a slow page)", async () => {
    const dueAt = Date.now() + 3_600_000;
    await f.pending('/retry-later', { not_before: new Date(dueAt).toISOString() });
    await frontier.refill();
    expect(bridge.waitingOn().wake_in_ms).toBeNull();
    expect(await bridge.isEmpty()).toBe(true);
    const wakeIn = bridge.waitingOn().wake_in_ms as number;
    expect(wakeIn).toBeGreaterThan(3_500_000);
    expect(wakeIn).toBeLessThanOrEqual(3_600_000);
    bridge.close();
    expect(bridge.waitingOn().wake_in_ms).toBeNull();
  });

  it('while a task admits a page, isFinished neither loads the page again nor says the crawl is finished', async () => {
    // A soak's hang: the sweep loaded a second copy of a page under admission; both were dispatched under one task id,
    // and the Crawlee task whose wait was replaced never ended.
    const page = await f.pending('/a');
    await frontier.refill();
    let claimed!: () => void;
    const claim = new Promise<void>((resolve) => (claimed = resolve));
    admit = async (entry) => {
      await claim;
      inFlight.add(entry);
      return entry;
    };
    const request = bridge.fetchNextRequest();
    await new Promise((resolve) => setImmediate(resolve)); // the task holds the page now: out of the window, not in flight
    expect(frontier.size).toBe(0);
    expect(await bridge.isFinished()).toBe(false);
    await frontier.lookBehind(Date.now() + 60_000);
    expect(await frontier.sweep()).toBe(false);
    expect(frontier.size).toBe(0);
    claimed();
    expect((await request)?.uniqueKey).toBe(page.id);
    expect(frontier.size).toBe(0);
    expect(await bridge.isFinished()).toBe(false); // in flight
  });

  it('a page whose admission failed (a store error) goes back to the window, its ticket kept, and is admitted again', async () => {
    const page = await f.pending('/a');
    await frontier.refill();
    admit = async (entry) => {
      entry.ticket = 5;
      throw new Error('store unreachable');
    };
    await expect(bridge.fetchNextRequest()).rejects.toThrow('store unreachable');
    expect(frontier.size).toBe(1);
    expect(frontier.admitting).toBe(0);
    let offered: WindowEntry | undefined;
    admit = async (entry) => {
      offered = entry;
      inFlight.add(entry);
      return entry;
    };
    expect((await bridge.fetchNextRequest())?.uniqueKey).toBe(page.id);
    expect(offered?.ticket).toBe(5);
  });
});
