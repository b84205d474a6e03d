import { BACKOFFS, backoffMs, type Backoff } from './backoff';

const low = () => 0;
const high = () => 1;
const waits = (backoff: Backoff, steps: number[], random?: () => number) => steps.map((step) => backoffMs(backoff, step, random));

describe('backoffMs (one formula: base · factor^(step−1), capped, spread, whole ms)', () => {
  it('starts at the base, grows by the factor, stops at the cap; a step below 1 counts as 1', () => {
    const backoff: Backoff = { baseMs: 100, factor: 3, maxMs: 1000, jitter: 'none' };
    expect(waits(backoff, [0, 1, 2, 3, 4, 5])).toEqual([100, 100, 300, 900, 1000, 1000]);
  });

  it('grows without end when there is no cap', () => {
    expect(backoffMs({ baseMs: 1, factor: 2, jitter: 'none' }, 41)).toBe(2 ** 40);
  });

  it('spreads upper-half waits over [d/2, d] and plus-minus-20 waits over [0.8·d, 1.2·d]', () => {
    const upper: Backoff = { baseMs: 1000, factor: 2, jitter: 'upper-half' };
    expect(waits(upper, [1, 2], low)).toEqual([500, 1000]);
    expect(waits(upper, [1, 2], high)).toEqual([1000, 2000]);
    expect(backoffMs(upper, 1, () => 0.5)).toBe(750);
    const spread: Backoff = { baseMs: 1000, factor: 2, jitter: 'plus-minus-20' };
    expect(waits(spread, [1, 2], low)).toEqual([800, 1600]);
    expect(waits(spread, [1, 2], high)).toEqual([1200, 2400]);
  });

  it('rounds to a whole millisecond', () => {
    expect(backoffMs({ baseMs: 10, factor: 1.5, jitter: 'none' }, 2)).toBe(15);
    expect(backoffMs({ baseMs: 10, factor: 1.5, jitter: 'none' }, 3)).toBe(23);
  });
});

describe('BACKOFFS (every wait of the project, by what waits)', () => {
  it('page: a crawl page retried by Crawlee waits 1 s, 2 s, 4 s ... without a cap', () => {
    expect(waits(BACKOFFS.page, [1, 2, 3, 8])).toEqual([1000, 2000, 4000, 128_000]);
  });

  it('job: a job message redelivered waits 1 s, 2 s, 4 s ... at most 30 s', () => {
    expect(waits(BACKOFFS.job, [1, 2, 3, 5, 6, 10])).toEqual([1000, 2000, 4000, 16_000, 30_000, 30_000]);
  });

  it('pageTask: a crawl page task redelivered waits 0.5 s, 1 s, 2 s ... at most 10 s', () => {
    expect(waits(BACKOFFS.pageTask, [1, 2, 3, 5, 6, 9])).toEqual([500, 1000, 2000, 8000, 10_000, 10_000]);
  });

  it('webhookPump and queueMessage: 1 s, 2 s, 4 s ... at most 60 s', () => {
    for (const row of [BACKOFFS.webhookPump, BACKOFFS.queueMessage]) {
      expect(waits(row, [1, 2, 6, 7, 10])).toEqual([1000, 2000, 32_000, 60_000, 60_000]);
    }
  });

  it('webhook: 5 s, 20 s, 80 s ... ×4 per attempt, at most an hour, ±20 %', () => {
    expect(waits(BACKOFFS.webhook, [1, 2, 3, 7, 8], () => 0.5)).toEqual([5000, 20_000, 80_000, 3_600_000, 3_600_000]);
    expect(waits(BACKOFFS.webhook, [1, 8], low)).toEqual([4000, 2_880_000]);
    expect(waits(BACKOFFS.webhook, [1, 8], high)).toEqual([6000, 4_320_000]);
  });

  it('model: 250 ms, 500 ms, 1 s ... at most 10 s, drawn in the upper half', () => {
    expect(waits(BACKOFFS.model, [1, 2, 3, 4, 11], high)).toEqual([250, 500, 1000, 2000, 10_000]);
    expect(waits(BACKOFFS.model, [1, 11], low)).toEqual([125, 5000]);
  });

  it('proxyRest: a failed proxy rests 5 s, 10 s, 20 s ... at most 5 minutes', () => {
    expect(waits(BACKOFFS.proxyRest, [1, 2, 3, 6, 7, 20])).toEqual([5000, 10_000, 20_000, 160_000, 300_000, 300_000]);
  });
});
