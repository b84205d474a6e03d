import { newId, nowIso } from './ids';

describe('ids', () => {
  it('makes sortable 26-char ULIDs', () => {
    const a = newId();
    const b = newId();
    expect(a).toHaveLength(26);
    expect(b > a).toBe(true);
  });
  it('formats RFC 3339 UTC with milliseconds', () => {
    expect(nowIso()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
  it('always says the current millisecond (the text is reused only within one)', () => {
    const clock = jest.spyOn(Date, 'now');
    try {
      clock.mockReturnValue(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
      expect(nowIso()).toBe('2026-01-02T03:04:05.006Z');
      expect(nowIso()).toBe('2026-01-02T03:04:05.006Z');
      clock.mockReturnValue(Date.UTC(2026, 0, 2, 3, 4, 5, 7));
      expect(nowIso()).toBe('2026-01-02T03:04:05.007Z');
    } finally {
      clock.mockRestore();
    }
    expect(nowIso()).not.toBe('2026-01-02T03:04:05.007Z'); // the real clock again
  });
});
