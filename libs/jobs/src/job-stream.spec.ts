import { SEQ_GAP_GRACE_MS, coalescedWake, sendableEvents } from './job-stream.service';

const at = (ms: number) => new Date(ms).toISOString();
const NOW = Date.parse('2026-11-24T03:00:00.000Z');
const ev = (seq: number, ageMs = 0) => ({ seq, created_at: at(NOW - ageMs) });

describe('sendableEvents (SSE order across concurrent writers)', () => {
  it('sends a contiguous run after the last sent id', () => {
    expect(sendableEvents([ev(4), ev(5), ev(6)], 3, NOW)).toEqual({ events: [ev(4), ev(5), ev(6)], waiting: false });
  });

  it('holds back an event stored before the one whose seq precedes it (a fresh gap), and what follows it', () => {
    // seq 24 was allocated first but 25 was stored first: sending 25 now would lose 24 for this client.
    expect(sendableEvents([ev(23), ev(25), ev(26)], 22, NOW)).toEqual({ events: [ev(23)], waiting: true });
    expect(sendableEvents([ev(25)], 23, NOW)).toEqual({ events: [], waiting: true });
  });

  it('sends across a gap once it is older than the grace (a seq left unused by a deduplicated event)', () => {
    const old = SEQ_GAP_GRACE_MS + 1;
    expect(sendableEvents([ev(25, old), ev(26)], 23, NOW)).toEqual({ events: [ev(25, old), ev(26)], waiting: false });
  });

  it('a reconnect with Last-Event-ID starts at the next seq, not at a gap', () => {
    expect(sendableEvents([ev(11)], 10, NOW).events).toEqual([ev(11)]);
    expect(sendableEvents([], 10, NOW)).toEqual({ events: [], waiting: false });
  });
});

describe('coalescedWake (one log read per interval while events keep coming)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reads at once after a quiet spell, then at most once per interval for a burst', () => {
    let now = 1000;
    const reads: number[] = [];
    const { wake } = coalescedWake(
      () => reads.push(now),
      25,
      () => now,
    );
    wake();
    expect(reads).toEqual([1000]);
    for (let i = 0; i < 50; i++) {
      now += 1;
      wake();
    }
    expect(reads).toEqual([1000]);
    now = 1025;
    jest.advanceTimersByTime(25);
    expect(reads).toEqual([1000, 1025]);
    now = 2000;
    wake();
    expect(reads).toEqual([1000, 1025, 2000]);
  });

  it('cancel() drops the pending read (the stream closed)', () => {
    let now = 0;
    let reads = 0;
    const { wake, cancel } = coalescedWake(
      () => reads++,
      25,
      () => now,
    );
    wake();
    now = 1;
    wake();
    cancel();
    jest.advanceTimersByTime(100);
    expect(reads).toBe(1);
  });
});
