import { everyMs, intervalMs, jitterMs, nextDue, normaliseSchedule, scheduleProblems } from './schedule';

const MIN = 60_000;

describe('monitor schedules', () => {
  it('reads every as a number and a unit', () => {
    expect(everyMs('30m')).toBe(30 * MIN);
    expect(everyMs('2h')).toBe(120 * MIN);
    expect(everyMs('1d')).toBe(1440 * MIN);
    expect(everyMs('45s')).toBe(45_000);
    for (const bad of ['0m', '30', 'm', '1.5h', '30 m', '1w', '-1m']) expect(everyMs(bad)).toBeNull();
  });

  it('reports each problem at its field', () => {
    expect(scheduleProblems({}, MIN)).toEqual([{ location: 'body.schedule', message: 'must have exactly one of every and cron' }]);
    expect(scheduleProblems({ every: '1h', cron: '* * * * *' }, MIN)[0].location).toBe('body.schedule');
    expect(scheduleProblems({ every: '30s' }, 5 * MIN)[0]).toMatchObject({ location: 'body.schedule.every', value: '30s' });
    expect(scheduleProblems({ every: 'soon' }, MIN)[0].location).toBe('body.schedule.every');
    expect(scheduleProblems({ every: '1h', timezone: 'UTC' }, MIN)[0].location).toBe('body.schedule.timezone');
    expect(scheduleProblems({ cron: '61 * * * *' }, MIN)[0]).toMatchObject({ location: 'body.schedule.cron', value: '61 * * * *' });
    expect(scheduleProblems({ cron: 'every day' }, MIN)[0].location).toBe('body.schedule.cron');
    expect(scheduleProblems({ cron: '0 * * * *', timezone: 'Mars/Olympus' }, MIN)[0].location).toBe('body.schedule.timezone');
    expect(scheduleProblems({ cron: '* * * * *' }, 5 * MIN)[0].location).toBe('body.schedule.cron');
    expect(scheduleProblems({ cron: '0 */6 * * *', timezone: 'Europe/Paris' }, 5 * MIN)).toEqual([]);
    expect(scheduleProblems({ every: '5m' }, 5 * MIN)).toEqual([]);
  });

  it('keeps interval slots on the grid of the anchor, one slot after any instant (one catch-up after downtime)', () => {
    const anchor = Date.UTC(2026, 10, 26, 10, 0, 0);
    const s = normaliseSchedule({ every: '30m' });
    expect(nextDue(s, anchor, anchor - 1)).toBe(anchor);
    expect(nextDue(s, anchor, anchor)).toBe(anchor + 30 * MIN);
    expect(nextDue(s, anchor, anchor + 29 * MIN)).toBe(anchor + 30 * MIN);
    // Ten hours down: the next slot is the first after now, not twenty missed ones.
    expect(nextDue(s, anchor, anchor + 600 * MIN + 1)).toBe(anchor + 630 * MIN);
  });

  it('follows cron in its time zone', () => {
    const s = normaliseSchedule({ cron: '0 9 * * *', timezone: 'Europe/Paris' });
    // 9:00 in Paris is 8:00 UTC in winter.
    expect(new Date(nextDue(s, 0, Date.UTC(2026, 10, 26, 7, 0))).toISOString()).toBe('2026-11-26T08:00:00.000Z');
    expect(new Date(nextDue(s, 0, Date.UTC(2026, 10, 26, 8, 0))).toISOString()).toBe('2026-11-27T08:00:00.000Z');
    expect(normaliseSchedule({ cron: '0 9 * * *' })).toEqual({ cron: '0 9 * * *', timezone: 'UTC' });
    expect(intervalMs(s)).toBe(1440 * MIN);
  });

  it('spreads monitors with a stable jitter under a tenth of the interval', () => {
    const s = normaliseSchedule({ every: '10m' });
    const values = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => jitterMs(id, 5 * MIN, s));
    expect(new Set(values).size).toBeGreaterThan(1);
    for (const v of values) expect(v).toBeGreaterThanOrEqual(0);
    for (const v of values) expect(v).toBeLessThan(MIN);
    expect(jitterMs('a', 5 * MIN, s)).toBe(values[0]);
    expect(jitterMs('a', 0, s)).toBe(0);
  });
});
