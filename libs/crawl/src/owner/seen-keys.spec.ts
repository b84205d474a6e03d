import { SeenKeys, fingerprint } from './seen-keys';

describe('SeenKeys', () => {
  it('knows a key once added; adding it again says so; size counts distinct keys', () => {
    const seen = new SeenKeys();
    expect(seen.has('https://a.test/')).toBe(false);
    expect(seen.add('https://a.test/')).toBe(true);
    expect(seen.add('https://a.test/')).toBe(false);
    expect(seen.has('https://a.test/')).toBe(true);
    expect(seen.has('https://a.test')).toBe(false);
    expect(seen.has('https://b.test/')).toBe(false);
    expect(seen.size).toBe(1);
  });

  it('keeps every key through its growth, and answers no unknown key', () => {
    const seen = new SeenKeys(4);
    const start = seen.bytes;
    for (let i = 0; i < 20_000; i++) seen.add(`https://h${i % 37}.test/n/${i}`);
    expect(seen.size).toBe(20_000);
    expect(seen.bytes).toBeGreaterThan(start);
    let known = 0;
    for (let i = 0; i < 40_000; i++) if (seen.has(`https://h${i % 37}.test/n/${i}`)) known++;
    expect(known).toBe(20_000);
    expect(seen.has('https://h0.test/n/0')).toBe(true);
    expect(seen.has('https://h0.test/n/20000')).toBe(false);
    // Half full at most: 20,000 keys in 2^16 slots of two 32-bit words.
    expect(seen.bytes).toBe(65_536 * 8);
  });

  it('tells apart keys that differ in one character, in length only, or outside ASCII', () => {
    const keys = ['https://a.test/p?x=1', 'https://a.test/p?x=2', 'https://a.test/p?x=1&', 'https://a.test/é', 'https://a.test/e', ''];
    const prints = new Set(keys.map((k) => fingerprint(k).join(':')));
    expect(prints.size).toBe(keys.length);
    const seen = new SeenKeys();
    keys.forEach((k) => seen.add(k));
    expect(seen.size).toBe(keys.length);
  });

  it('spreads URL-like keys without a fingerprint collision and with even slots', () => {
    const prints = new Set<string>();
    const buckets = new Uint32Array(1 << 12);
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const [h, l] = fingerprint(`https://h${i % 100}.test/n/${Math.floor(i / 100)}`);
      prints.add(`${h}:${l}`);
      buckets[l & ((1 << 12) - 1)]++;
    }
    expect(prints.size).toBe(n);
    const mean = n / buckets.length;
    // A uniform spread puts each of 4,096 buckets within a few standard deviations (√49 = 7) of 49.
    expect(Math.max(...buckets)).toBeLessThan(mean + 40);
    expect(Math.min(...buckets)).toBeGreaterThan(mean - 40);
  });
});
