/**
 * The rate limiter contract (RateLimiterPort). `peer()` is another replica's limiter: for Redis a
 * second instance on the same server and key prefix (it must see the same counters).
 */
import type { RateLimiterPort } from '@app/events';

export interface RateLimiterContractSetup {
  create(): Promise<RateLimiterPort>;
  peer(of: RateLimiterPort): Promise<RateLimiterPort>;
  /** Lets at least `ms` pass on the limiter's clock (moved by the test where the adapter allows it). */
  passTime(ms: number): Promise<void>;
  /** Undoes whatever passTime changed (e.g. restores the real clock); called after every test. */
  restoreTime?(): void;
}

/** Polls `probe` until it returns a value (generous deadline: the machine may be busy). */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let seq = 0;
const key = (label: string) => `key-${label}-${process.pid}-${Date.now().toString(36)}-${seq++}`;

export function rateLimiterContract(setup: () => RateLimiterContractSetup): void {
  const open = new Set<RateLimiterPort>();
  async function limiter(): Promise<RateLimiterPort> {
    const l = await setup().create();
    open.add(l);
    return l;
  }
  afterEach(async () => {
    setup().restoreTime?.();
    await Promise.all([...open].map((l) => l.close()));
    open.clear();
  });

  it('allows `limit` requests per window, counting remaining down, then rejects without throwing', async () => {
    const l = await limiter();
    const k = key('limit');
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await l.consume(k, 3, 10_000));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    for (const d of decisions) expect(d.limit).toBe(3);
  });

  it('reports the time until the window resets', async () => {
    const l = await limiter();
    const k = key('reset');
    // Measured by the limiter when it opens the window, so the first report is the whole window.
    const first = await l.consume(k, 1, 60_000);
    expect(first.resetMs).toBeGreaterThan(59_000);
    expect(first.resetMs).toBeLessThanOrEqual(60_000);
    // The limiter's own clock (Redis, or this process) moves on: rejections report less and less,
    // never more, and never a fresh window (60 s is far beyond the polling deadline).
    const rejected = await eventually(async () => {
      const decision = await l.consume(k, 1, 60_000);
      expect(decision.allowed).toBe(false);
      expect(decision.resetMs).toBeLessThanOrEqual(first.resetMs);
      return decision.resetMs < first.resetMs ? decision : undefined;
    }, 'the reported reset to count down');
    expect(rejected.resetMs).toBeGreaterThan(0);
  });

  it('allows again once the window has passed', async () => {
    const l = await limiter();
    const k = key('window');
    expect((await l.consume(k, 1, 1000)).allowed).toBe(true);
    const rejected = await l.consume(k, 1, 1000);
    expect(rejected.allowed).toBe(false);
    // Just past the reset the limiter itself reported; only the outcome afterwards is asserted.
    await setup().passTime(rejected.resetMs + 1);
    expect((await l.consume(k, 1, 1000)).allowed).toBe(true);
  });

  it('keeps separate keys independent', async () => {
    const l = await limiter();
    const a = key('a');
    const b = key('b');
    expect((await l.consume(a, 1, 10_000)).allowed).toBe(true);
    expect((await l.consume(a, 1, 10_000)).allowed).toBe(false);
    expect((await l.consume(b, 1, 10_000)).allowed).toBe(true);
  });

  it('keeps counters of different limits on the same key apart', async () => {
    const l = await limiter();
    const k = key('policies');
    expect((await l.consume(k, 1, 10_000)).allowed).toBe(true);
    expect((await l.consume(k, 1, 10_000)).allowed).toBe(false);
    expect((await l.consume(k, 5, 60_000)).remaining).toBe(4);
  });

  it('shares counters between replicas', async () => {
    const one = await limiter();
    const two = await setup().peer(one);
    open.add(two);
    const k = key('shared');
    expect((await one.consume(k, 3, 10_000)).remaining).toBe(2);
    expect((await two.consume(k, 3, 10_000)).remaining).toBe(1);
    expect((await one.consume(k, 3, 10_000)).remaining).toBe(0);
    expect((await two.consume(k, 3, 10_000)).allowed).toBe(false);
  });

  it('admits exactly the limit of requests that arrive together on two replicas (each remaining value once)', async () => {
    const one = await limiter();
    const two = await setup().peer(one);
    open.add(two);
    const k = key('burst');
    const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? one : two).consume(k, 40, 60_000)));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(40);
    expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });
}
