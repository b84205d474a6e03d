import type { MonitorRecord } from './monitor.types';
import { jitterMs, nextDue } from './schedule';

/**
 * The first slot strictly after `after` and when its run starts (slot + the monitor's jitter). A new
 * monitor's first slot is its creation (`after` just before the anchor): the first run is the baseline.
 */
export function slotAfter(
  monitor: Pick<MonitorRecord, '_id' | 'schedule' | 'anchor_at'>,
  after: number,
  jitterMaxMs: number,
): { next_slot_at: string; next_run_at: string } {
  const slot = nextDue(monitor.schedule, Date.parse(monitor.anchor_at), after);
  return {
    next_slot_at: new Date(slot).toISOString(),
    next_run_at: new Date(slot + jitterMs(monitor._id, jitterMaxMs, monitor.schedule)).toISOString(),
  };
}
