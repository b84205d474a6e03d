import { conditionalHeaders, textHash } from './monitor-pages.service';
import { slotAfter } from './monitor-slots';

describe('conditional requests and text hashes', () => {
  it('sends the validators the last run got, and none without', () => {
    const memory = {
      etag: '"v1"',
      lastModified: 'Sun, 01 Nov 2026 00:00:00 GMT',
      textHash: null,
      links: [],
      data: null,
      fetchedAt: '2026-11-01T00:00:00.000Z',
    };
    expect(conditionalHeaders(memory)).toEqual({ 'If-None-Match': '"v1"', 'If-Modified-Since': 'Sun, 01 Nov 2026 00:00:00 GMT' });
    expect(conditionalHeaders({ ...memory, lastModified: null })).toEqual({ 'If-None-Match': '"v1"' });
    expect(conditionalHeaders({ ...memory, etag: null, lastModified: null })).toBeUndefined();
    expect(conditionalHeaders(null)).toBeUndefined();
  });

  it('hashes the text with whitespace and Unicode forms normalised', () => {
    expect(textHash('Price:  10\n\n  EUR')).toBe(textHash('Price: 10 EUR'));
    expect(textHash('ﬁne')).toBe(textHash('fine'));
    expect(textHash('Price: 10')).not.toBe(textHash('Price: 11'));
  });
});

describe('slots', () => {
  it('puts a new monitor’s first slot at its creation, later ones on its grid, each run after its jitter', () => {
    const anchor = '2026-11-26T10:00:00.000Z';
    const m = { _id: 'm1', schedule: { every: '1h' }, anchor_at: anchor };
    const first = slotAfter(m, Date.parse(anchor) - 1, 0);
    expect(first).toEqual({ next_slot_at: anchor, next_run_at: anchor });
    expect(slotAfter(m, Date.parse(anchor), 0).next_slot_at).toBe('2026-11-26T11:00:00.000Z');
    const jittered = slotAfter(m, Date.parse(anchor), 60_000);
    expect(Date.parse(jittered.next_run_at) - Date.parse(jittered.next_slot_at)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(jittered.next_run_at) - Date.parse(jittered.next_slot_at)).toBeLessThan(60_000);
  });
});
