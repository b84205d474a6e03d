/**
 * The politeness contract (PolitenessPort): both adapters must pass exactly this suite. `peer()` is
 * another replica's adapter (for Redis a second connection to the same server and prefix): what one
 * replica learns about a host must hold for the other at once.
 */
import type { HostRequestPolicy, PolitenessPort } from '@app/politeness';

export interface PolitenessContractSetup {
  create(): Promise<PolitenessPort>;
  peer(of: PolitenessPort): Promise<PolitenessPort>;
  /** Lets at least `ms` pass on the port's clock (moved by the test where the adapter allows it, else waited for). */
  passTime(ms: number): Promise<void>;
  /** Backoff settings the adapters were created with. */
  backoff: { baseMs: number; maxMs: number };
}

let seq = 0;
const host = (label: string) => `${label}-${process.pid}-${Date.now().toString(36)}-${seq++}.example`;
const FREE: HostRequestPolicy = { intervalMs: 0, maxInFlight: 2, leaseMs: 60_000 };
const SPACED = (intervalMs: number): HostRequestPolicy => ({ intervalMs, maxInFlight: 8, leaseMs: 60_000 });

export function politenessContract(setup: () => PolitenessContractSetup): void {
  const open = new Set<PolitenessPort>();
  async function port(): Promise<PolitenessPort> {
    const p = await setup().create();
    open.add(p);
    return p;
  }
  async function peerOf(p: PolitenessPort): Promise<PolitenessPort> {
    const other = await setup().peer(p);
    open.add(other);
    return other;
  }
  afterEach(async () => {
    await Promise.all([...open].map((p) => p.close()));
    open.clear();
  });

  describe('in-flight cap', () => {
    it('grants up to maxInFlight across replicas, then answers busy until a slot is released', async () => {
      const a = await port();
      const b = await peerOf(a);
      const h = host('cap');
      const first = await a.acquire(h, FREE);
      const second = await b.acquire(h, FREE);
      expect(first.granted && second.granted).toBe(true);
      const third = await a.acquire(h, FREE);
      expect(third).toMatchObject({ granted: false, reason: 'busy' });
      expect(await b.readyIn(h, FREE)).toBeGreaterThan(0);
      if (!first.granted) throw new Error('unreachable');
      await a.release(h, first.token);
      expect((await b.acquire(h, FREE)).granted).toBe(true);
      expect((await a.hostState(h)).inFlight).toBe(2);
    });

    it('is per host', async () => {
      const a = await port();
      const h1 = host('h1');
      const h2 = host('h2');
      const policy = { ...FREE, maxInFlight: 1 };
      expect((await a.acquire(h1, policy)).granted).toBe(true);
      expect((await a.acquire(h1, policy)).granted).toBe(false);
      expect((await a.acquire(h2, policy)).granted).toBe(true);
    });

    it('frees the slot of a worker that never released it once its lease ran out', async () => {
      const a = await port();
      const h = host('lease');
      const short = { ...FREE, maxInFlight: 1, leaseMs: 300 };
      expect((await a.acquire(h, short)).granted).toBe(true);
      expect((await a.acquire(h, short)).granted).toBe(false);
      await setup().passTime(400);
      expect((await a.acquire(h, short)).granted).toBe(true);
    });

    it('keeps a renewed slot past its first lease (from another replica too), and frees it one lease after the renewals stop', async () => {
      const a = await port();
      const b = await peerOf(a);
      const h = host('renew');
      // Leases long against the steps between calls (a loaded machine), so only the lease rules decide.
      const slot = { ...FREE, maxInFlight: 1, leaseMs: 4000 };
      const held = await a.acquire(h, slot);
      if (!held.granted) throw new Error('the first slot was refused');
      await setup().passTime(2500);
      expect(await a.renew(h, held.token, 4000)).toBe(true);
      await setup().passTime(2500);
      // Past the first lease, within the renewed one.
      expect(await b.acquire(h, slot)).toMatchObject({ granted: false, reason: 'busy' });
      // The renewal's lease counts from now (here a short one): the slot frees one such lease later.
      expect(await b.renew(h, held.token, 300)).toBe(true);
      await setup().passTime(400);
      const next = await b.acquire(h, slot);
      expect(next.granted).toBe(true);
      // A slot that ran out (or was released) is not revived by a late renewal.
      expect(await a.renew(h, held.token, 4000)).toBe(false);
      expect((await a.hostState(h)).inFlight).toBe(1);
    });
  });

  describe('spacing (delay_ms, Crawl-delay)', () => {
    it('a spaced request is exclusive and the next may start only the interval after it ended', async () => {
      const a = await port();
      const b = await peerOf(a);
      const h = host('spaced');
      const first = await a.acquire(h, SPACED(5_000));
      if (!first.granted) throw new Error('expected a grant');
      // Exclusive while it runs, for spaced and unspaced requests alike.
      expect(await b.acquire(h, SPACED(5_000))).toMatchObject({ granted: false, reason: 'busy' });
      expect(await b.acquire(h, FREE)).toMatchObject({ granted: false, reason: 'busy' });
      await a.release(h, first.token);
      const refused = await b.acquire(h, SPACED(5_000));
      expect(refused).toMatchObject({ granted: false, reason: 'interval' });
      if (refused.granted) throw new Error('unreachable');
      expect(refused.retryInMs).toBeGreaterThan(0);
      expect(refused.retryInMs).toBeLessThanOrEqual(5_000);
      // Unspaced requests of another crawl also wait for the host's clock.
      expect(await a.acquire(h, FREE)).toMatchObject({ granted: false, reason: 'interval' });
    });

    it('lets the next request start once the interval has passed', async () => {
      const a = await port();
      const h = host('spaced-pass');
      const first = await a.acquire(h, SPACED(300));
      if (!first.granted) throw new Error('expected a grant');
      await a.release(h, first.token);
      await setup().passTime(350);
      expect((await a.acquire(h, SPACED(300))).granted).toBe(true);
    });

    it("applies a host's Crawl-delay to every request, set by one replica and seen by the other", async () => {
      const a = await port();
      const b = await peerOf(a);
      const h = host('crawl-delay');
      await a.setCrawlDelay(h, 2_000);
      expect((await b.hostState(h)).crawlDelayMs).toBe(2_000);
      const first = await b.acquire(h, FREE);
      if (!first.granted) throw new Error('expected a grant');
      expect(await a.acquire(h, FREE)).toMatchObject({ granted: false, reason: 'busy' });
      await b.release(h, first.token);
      const next = await a.acquire(h, FREE);
      expect(next).toMatchObject({ granted: false, reason: 'interval' });
      await a.setCrawlDelay(h, 0);
      expect((await a.hostState(h)).crawlDelayMs).toBe(0);
    });
  });

  describe('rate limits (429, 503 with Retry-After)', () => {
    it('pauses the host for every replica for the Retry-After given', async () => {
      const a = await port();
      const b = await peerOf(a);
      const h = host('retry-after');
      const pause = await a.reportRateLimit(h, 5_000);
      expect(pause.pauseMs).toBe(5_000);
      expect(pause.step).toBe(1);
      expect(pause.limitedSince).toBeGreaterThan(0);
      const refused = await b.acquire(h, FREE);
      expect(refused).toMatchObject({ granted: false, reason: 'paused' });
      if (refused.granted) throw new Error('unreachable');
      expect(refused.retryInMs).toBeGreaterThan(0);
      expect(refused.retryInMs).toBeLessThanOrEqual(5_000);
      expect(await b.readyIn(h, FREE)).toBeGreaterThan(0);
      expect((await b.hostState(h)).pausedUntil).toBe(pause.pausedUntil);
    });

    it('without Retry-After (or with 0) backs off base · 2^(step−1), capped, stepping once per burst', async () => {
      const { baseMs, maxMs } = setup().backoff;
      const a = await port();
      const b = await peerOf(a);
      const h = host('backoff');
      const first = await a.reportRateLimit(h, null);
      expect(first).toMatchObject({ step: 1, pauseMs: baseMs });
      // A burst: concurrent 429s inside the same pause (from any replica) do not step again.
      const burst = await Promise.all([b.reportRateLimit(h, null), a.reportRateLimit(h, 0), b.reportRateLimit(h, null)]);
      for (const p of burst) expect(p.step).toBe(1);
      expect(Math.max(...burst.map((p) => p.pausedUntil))).toBe(first.pausedUntil);
      await setup().passTime(baseMs + 50);
      const second = await a.reportRateLimit(h, 0);
      expect(second).toMatchObject({ step: 2, pauseMs: Math.min(baseMs * 2, maxMs) });
      expect(second.limitedSince).toBe(first.limitedSince);
      await setup().passTime(Math.min(baseMs * 2, maxMs) + 50);
      const third = await a.reportRateLimit(h, null);
      expect(third).toMatchObject({ step: 3, pauseMs: Math.min(baseMs * 4, maxMs) });
    });

    it('a later Retry-After within a burst can only lengthen the pause', async () => {
      const a = await port();
      const h = host('lengthen');
      const first = await a.reportRateLimit(h, 1_000);
      const longer = await a.reportRateLimit(h, 8_000);
      expect(longer.step).toBe(1);
      expect(longer.pausedUntil).toBeGreaterThan(first.pausedUntil);
      const shorter = await a.reportRateLimit(h, 10);
      expect(shorter.pausedUntil).toBe(longer.pausedUntil);
    });

    it('a success after the pause ends the streak; one during the pause does not', async () => {
      const { baseMs } = setup().backoff;
      const a = await port();
      const h = host('success');
      await a.reportRateLimit(h, null);
      await a.reportSuccess(h); // an answer that was already on its way
      expect((await a.hostState(h)).step).toBe(1);
      await setup().passTime(baseMs + 50);
      expect((await a.acquire(h, FREE)).granted).toBe(true);
      await a.reportSuccess(h);
      const state = await a.hostState(h);
      expect(state.step).toBe(0);
      expect(state.limitedSince).toBe(0);
      expect((await a.reportRateLimit(h, null)).step).toBe(1);
    });

    it('a release that says the request was answered ends the streak as a success does, once the pause has passed', async () => {
      const { baseMs } = setup().backoff;
      const a = await port();
      const b = await peerOf(a);
      const h = host('answered');
      await a.reportRateLimit(h, null);
      await setup().passTime(baseMs + 50);
      const refused = await a.acquire(h, FREE);
      if (!refused.granted) throw new Error('the pause should have passed');
      await a.release(h, refused.token); // not answered (a failure): the streak goes on
      expect((await b.hostState(h)).step).toBe(1);
      const slot = await b.acquire(h, FREE);
      if (!slot.granted) throw new Error('the host should be free');
      await b.release(h, slot.token, { answered: true });
      const state = await a.hostState(h);
      expect(state).toMatchObject({ step: 0, limitedSince: 0, inFlight: 0 });
    });

    it('an answered release during the pause does not end the streak', async () => {
      const a = await port();
      const h = host('answered-early');
      const slot = await a.acquire(h, FREE);
      if (!slot.granted) throw new Error('the host should be free');
      await a.reportRateLimit(h, null); // the host answered another request with a 429 meanwhile
      await a.release(h, slot.token, { answered: true });
      expect((await a.hostState(h)).step).toBe(1);
      expect((await a.hostState(h)).inFlight).toBe(0);
    });
  });
}
