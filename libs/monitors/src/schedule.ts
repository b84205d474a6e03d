import { parseExpression } from 'cron-parser';

/** A monitor's schedule as stored: a fixed interval, or a cron expression in a time zone (docs/monitors.md "Schedules"). */
export type MonitorSchedule = { every: string } | { cron: string; timezone: string };

export interface ScheduleProblem {
  location: string;
  message: string;
  value?: unknown;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `every` as written: a whole number and one unit (s, m, h, d). */
export const EVERY_PATTERN = /^[1-9][0-9]{0,6}[smhd]$/;

/** Milliseconds of an `every` value (`30m` → 1,800,000); null when it does not parse. */
export function everyMs(every: string): number | null {
  if (!EVERY_PATTERN.test(every)) return null;
  return Number(every.slice(0, -1)) * UNIT_MS[every.slice(-1)];
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The problems of a schedule, each at its field: exactly one of `every` and `cron`; `every` at or above
 * the floor; a cron expression that cron-parser reads, in a time zone the runtime knows, whose runs are
 * not closer than the floor either (two consecutive runs are measured).
 */
export function scheduleProblems(
  schedule: { every?: string; cron?: string; timezone?: string },
  floorMs: number,
  at = 'body.schedule',
): ScheduleProblem[] {
  const hasEvery = schedule.every !== undefined;
  const hasCron = schedule.cron !== undefined;
  if (hasEvery === hasCron) return [{ location: at, message: 'must have exactly one of every and cron' }];
  if (hasEvery) {
    if (schedule.timezone !== undefined) return [{ location: `${at}.timezone`, message: 'only goes with cron' }];
    const ms = everyMs(schedule.every!);
    if (ms === null)
      return [{ location: `${at}.every`, message: 'must be a whole number and a unit: s, m, h or d (e.g. 30m)', value: schedule.every }];
    if (ms < floorMs) {
      return [
        {
          location: `${at}.every`,
          message: `must be at least ${floorMs / 1000} s (GLEANER_MONITOR_MIN_INTERVAL_S)`,
          value: schedule.every,
        },
      ];
    }
    return [];
  }
  const zone = schedule.timezone ?? 'UTC';
  if (!validTimeZone(zone)) return [{ location: `${at}.timezone`, message: 'must be an IANA time zone (e.g. Europe/Paris)', value: zone }];
  try {
    const it = parseExpression(schedule.cron!, { tz: zone, currentDate: new Date(Date.UTC(2026, 0, 1)) });
    const first = it.next().getTime();
    const second = it.next().getTime();
    if (second - first < floorMs) {
      return [
        {
          location: `${at}.cron`,
          message: `runs more often than every ${floorMs / 1000} s (GLEANER_MONITOR_MIN_INTERVAL_S)`,
          value: schedule.cron,
        },
      ];
    }
  } catch (error) {
    return [{ location: `${at}.cron`, message: `is not a cron expression: ${(error as Error).message}`, value: schedule.cron }];
  }
  return [];
}

/** The schedule as stored (cron gets its time zone, UTC by default). */
export function normaliseSchedule(schedule: { every?: string; cron?: string; timezone?: string }): MonitorSchedule {
  return schedule.every !== undefined ? { every: schedule.every } : { cron: schedule.cron!, timezone: schedule.timezone ?? 'UTC' };
}

/**
 * The first due time strictly after `after`. An interval counts from `anchor` (the monitor's creation or
 * its last resume), so its slots stay on one grid whatever the ticks; a cron schedule from the expression.
 */
export function nextDue(schedule: MonitorSchedule, anchor: number, after: number): number {
  if ('every' in schedule) {
    const ms = everyMs(schedule.every)!;
    if (after < anchor) return anchor;
    return anchor + (Math.floor((after - anchor) / ms) + 1) * ms;
  }
  return parseExpression(schedule.cron, { tz: schedule.timezone, currentDate: new Date(after) })
    .next()
    .getTime();
}

/**
 * A per-monitor delay added to every due time, so that monitors due at the same instant do not all start
 * together: a stable hash of the id mapped onto [0, maxMs), never more than a tenth of the interval.
 */
export function jitterMs(monitorId: string, maxMs: number, schedule: MonitorSchedule): number {
  if (maxMs <= 0) return 0;
  let hash = 2166136261;
  for (let i = 0; i < monitorId.length; i++) hash = Math.imul(hash ^ monitorId.charCodeAt(i), 16777619) >>> 0;
  return hash % Math.max(1, Math.min(maxMs, Math.floor(intervalMs(schedule) / 10)));
}

/** The interval of a schedule (a cron schedule's: between two consecutive runs from a fixed date). */
export function intervalMs(schedule: MonitorSchedule): number {
  if ('every' in schedule) return everyMs(schedule.every)!;
  const it = parseExpression(schedule.cron, { tz: schedule.timezone, currentDate: new Date(Date.UTC(2026, 0, 1)) });
  const first = it.next().getTime();
  return it.next().getTime() - first;
}
