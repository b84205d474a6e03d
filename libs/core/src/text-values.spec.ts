import { calendarDate, httpUrlOf, instantOf } from './text-values';

describe('calendarDate', () => {
  it('reads ISO dates and date-times, D.M.YYYY and D/M/YYYY without a shift of day', () => {
    expect(calendarDate(' 2026-12-02 ')).toBe('2026-12-02');
    expect(calendarDate('2026-12-02T23:30:00-05:00')).toBe('2026-12-02');
    expect(calendarDate('2.12.2026')).toBe('2026-12-02');
    expect(calendarDate('02/12/2026')).toBe('2026-12-02');
  });

  it('reads free text with ordinals, and with namedMonth only when a month is named beside a digit', () => {
    expect(calendarDate('December 2nd, 2026')).toBe('2026-12-02');
    expect(calendarDate('December 2nd, 2026', { namedMonth: true })).toBe('2026-12-02');
    expect(calendarDate('2026', { namedMonth: true })).toBeUndefined();
    expect(calendarDate('2026')).toBe('2026-01-01');
    expect(calendarDate('no date here')).toBeUndefined();
  });
});

describe('instantOf', () => {
  it('keeps a named zone and reads the rest as UTC', () => {
    expect(instantOf('Wed, 02 Dec 2026 10:00:00 GMT')).toBe('2026-12-02T10:00:00.000Z');
    expect(instantOf('2026-12-02 10:00')).toBe('2026-12-02T10:00:00.000Z');
    expect(instantOf('tomorrow')).toBeUndefined();
  });
});

describe('httpUrlOf', () => {
  it('resolves http(s) URLs against a base and refuses other schemes and junk', () => {
    expect(httpUrlOf(' /a?b=1 ', 'https://site.test/x/')).toBe('https://site.test/a?b=1');
    expect(httpUrlOf('http://other.test')).toBe('http://other.test/');
    expect(httpUrlOf('javascript:alert(1)', 'https://site.test/')).toBeUndefined();
    expect(httpUrlOf('not a url')).toBeUndefined();
  });
});
