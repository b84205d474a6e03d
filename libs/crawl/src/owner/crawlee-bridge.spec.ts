import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import type { Admission } from './admission';
import { CrawleeBridge, type BridgeParts } from './crawlee-bridge';
import { Frontier } from './frontier';
import { HostSchedule } from './host-schedule';
import { InFlightPages } from './in-flight';

/**
 * The bridge's answers to Crawlee's pool about the frontier (isEmpty, isFinished), on the embedded store. Crawlee asks
 * isFinished only when no task of the pool runs (no page in flight, none being admitted); the specs ask it the same way.
 */
describe('CrawleeBridge', () => {
  let f: OwnerFixture;
  let frontier: Frontier;
  let bridge: CrawleeBridge;

  beforeEach(async () => {
    f = await ownerFixture();
    const hosts = new HostSchedule({ delayMs: 0, minIntervalMs: 0, maxConcurrency: 4 });
    const inFlight = new InFlightPages(hosts);
    frontier = new Frontier(f.run, f.repository, inFlight, {
      admissionClosed: () => false,
      onWindowEntry: () => undefined,
      onQueued: () => undefined,
    });
    await frontier.restore(0);
    const parts: BridgeParts = {
      lease: { holds: async () => true },
      frontier,
      admission: { hasAdopted: false } as unknown as Admission,
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
    expect(frontier.next(Date.now(), () => true)?.id).toBe(late.id);
    await f.repository.entries.skipPending(late.id, { error_category: 'robots' });
    expect(await bridge.isFinished()).toBe(true);
  });
});
