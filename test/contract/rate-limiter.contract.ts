/**
 * The rate limiter contract (RateLimiterPort). `peer()` is another replica's limiter: for Redis a
 * second instance on the same server and key prefix (it must see the same counters).
 */
import type { RateLimiterPort } from '@app/events';

export interface RateLimiterContractSetup {
  create(): Promise<RateLimiterPort>;
  peer(of: RateLimiterPort): Promise<RateLimiterPort>;
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
    const first = await l.consume(k, 1, 10_000);
    expect(first.resetMs).toBeGreaterThan(9000);
    expect(first.resetMs).toBeLessThanOrEqual(10_000);
    await new Promise((r) => setTimeout(r, 200));
    const rejected = await l.consume(k, 1, 10_000);
    expect(rejected.allowed).toBe(false);
    expect(rejected.resetMs).toBeGreaterThan(0);
    expect(rejected.resetMs).toBeLessThan(first.resetMs);
  });

  it('allows again once the window has passed', async () => {
    const l = await limiter();
    const k = key('window');
    expect((await l.consume(k, 1, 1000)).allowed).toBe(true);
    const rejected = await l.consume(k, 1, 1000);
    expect(rejected.allowed).toBe(false);
    await new Promise((r) => setTimeout(r, rejected.resetMs + 50));
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
}
