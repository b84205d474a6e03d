import { FrontierWindow, type WindowEntry } from './frontier-window';

let seq = 0;
function entry(host: string, notBefore = 0, extra: Partial<WindowEntry> = {}): WindowEntry {
  seq += 1;
  return {
    id: `e${seq}`,
    key: `k${seq}`,
    url: `https://${host}/${seq}`,
    host,
    depth: 1,
    parentUrl: null,
    seq,
    extract: true,
    ticket: null,
    dispatch: 0,
    retryCount: 0,
    rateLimitRetries: 0,
    robotsDeferrals: 0,
    notBefore,
    ...extra,
  };
}

describe('FrontierWindow', () => {
  it('serves hosts round-robin, each host first-in first-out', () => {
    const w = new FrontierWindow();
    const a1 = entry('a');
    const a2 = entry('a');
    const b1 = entry('b');
    const c1 = entry('c');
    for (const e of [a1, a2, b1, c1]) w.add(e, 0);
    const order = [w.next(0, () => true), w.next(0, () => true), w.next(0, () => true), w.next(0, () => true)];
    expect(order.map((e) => e?.id)).toEqual([a1.id, b1.id, c1.id, a2.id]);
    expect(w.next(0, () => true)).toBeNull();
    expect(w.size).toBe(0);
  });

  it('skips hosts that cannot start, without losing their place', () => {
    const w = new FrontierWindow();
    const a = entry('a');
    const b = entry('b');
    w.add(a, 0);
    w.add(b, 0);
    expect(w.next(0, (h) => h !== 'a')?.id).toBe(b.id);
    expect(w.next(0, (h) => h !== 'a')).toBeNull();
    expect(w.hasStartable(0, (h) => h !== 'a')).toBe(false);
    expect(w.hasStartable(0, () => true)).toBe(true);
    expect(w.next(0, () => true)?.id).toBe(a.id);
  });

  it('holds delayed entries until they come due, earliest first', () => {
    const w = new FrontierWindow();
    const late = entry('a', 2000);
    const early = entry('b', 1000);
    w.add(late, 0);
    w.add(early, 0);
    expect(w.next(500, () => true)).toBeNull();
    expect(w.nextDueAt()).toBe(1000);
    expect(w.next(1500, () => true)?.id).toBe(early.id);
    expect(w.next(1500, () => true)).toBeNull();
    expect(w.next(2500, () => true)?.id).toBe(late.id);
    expect(w.nextDueAt()).toBeNull();
  });

  it('ignores an entry it already holds, and removes entries by predicate', () => {
    const w = new FrontierWindow();
    const a = entry('a');
    const b = entry('b', 5000, { ticket: 3 });
    const c = entry('c');
    w.add(a, 0);
    w.add(a, 0);
    w.add(b, 0);
    w.add(c, 0);
    expect(w.size).toBe(3);
    const removed = w.removeWhere((e) => e.ticket === null);
    expect(removed.map((e) => e.id).sort()).toEqual([a.id, c.id].sort());
    expect(w.size).toBe(1);
    expect(w.has(b.id)).toBe(true);
    expect(w.next(6000, () => true)?.id).toBe(b.id);
  });
});
