import { GAP_WEIGHT, GapClock, LINGER_GAPS, lingerFor } from './gap-clock';

const bounds = { minLingerMs: 20, maxLingerMs: 250 };

describe('lingerFor (four recent gaps between items, within the bounds, whole ms)', () => {
  it('is LINGER_GAPS times the gap, at least the shortest linger, at most the longest', () => {
    expect(LINGER_GAPS).toBe(4);
    expect(lingerFor(0, bounds)).toBe(20);
    expect(lingerFor(10, bounds)).toBe(40);
    expect(lingerFor(48.8, bounds)).toBe(195);
    expect(lingerFor(62.5, bounds)).toBe(250);
    expect(lingerFor(3000, bounds)).toBe(250);
    expect(lingerFor(10, { minLingerMs: 0, maxLingerMs: 1000 })).toBe(40);
  });
});

describe('GapClock', () => {
  it('starts at no gap (the shortest linger) and counts no gap for its first item', () => {
    const clock = new GapClock(bounds);
    expect(clock.lingerMs).toBe(20);
    clock.tick(5000);
    expect(clock.gapMs).toBe(0);
  });

  it('keeps a running mean of the gaps, the newest weighted GAP_WEIGHT', () => {
    expect(GAP_WEIGHT).toBe(0.2);
    const clock = new GapClock(bounds);
    for (const at of [0, 100, 200, 300]) clock.tick(at);
    // Gaps of 100 ms, averaged from 0: 20, 36, 48.8 ms; four of them.
    expect(clock.gapMs).toBeCloseTo(48.8, 10);
    expect(clock.lingerMs).toBe(195);
    // Items coming together again: the mean falls back.
    for (let i = 0; i < 20; i++) clock.tick(300);
    expect(clock.lingerMs).toBe(20);
  });

  it('counts a gap as it was by default, or at most `longestGapMs`', () => {
    const plain = new GapClock(bounds);
    const capped = new GapClock(bounds, bounds.maxLingerMs);
    for (const clock of [plain, capped]) {
      clock.tick(0);
      clock.tick(3_600_000); // an idle hour
    }
    expect(plain.gapMs).toBe(720_000);
    expect(capped.gapMs).toBe(50);
    // Twelve items at once after it: the plain mean still lingers the longest, the capped one is back to 20 ms.
    for (const clock of [plain, capped]) for (let i = 0; i < 12; i++) clock.tick(3_600_000);
    expect(plain.lingerMs).toBe(250);
    expect(capped.lingerMs).toBe(20);
  });
});
