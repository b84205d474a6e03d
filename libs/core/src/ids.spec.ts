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
});
