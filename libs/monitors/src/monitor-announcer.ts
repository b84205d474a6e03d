import { Inject, Injectable } from '@nestjs/common';
import { JobLifecycleHooks, type JobRecord } from '@app/jobs';
import { LOGGER, type AppLogger } from '@app/observability';
import { MonitorClock } from './monitor-clock';
import type { MonitorChangeRecord, MonitorRecord, MonitorRunRecord } from './monitor.types';

/** A `monitor.changed` event carries at most this many changes; with more it carries their count and a link. */
export const EVENT_CHANGES_LIMIT = 100;

/**
 * A run's events (docs/monitors.md "Notifications"), announced on the run's job so that they are signed,
 * ordered and retried as every webhook: `monitor.failed` for a failed run (`failed` in `notify.on`), and
 * one `monitor.changed` with the changes of the kinds in `notify.on`.
 */
@Injectable()
export class MonitorAnnouncer {
  constructor(
    private readonly hooks: JobLifecycleHooks,
    private readonly clock: MonitorClock,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  async announce(monitor: MonitorRecord, run: MonitorRunRecord, job: JobRecord, changes: MonitorChangeRecord[] = []): Promise<void> {
    if (!monitor.notify) return;
    const on = monitor.notify.on;
    const base = { monitor_id: monitor._id, monitor_name: monitor.name, run_id: run._id, job_id: job._id, counts: run.counts };
    const occurred = run.finished_at ?? new Date(this.clock.now()).toISOString();
    if (run.status === 'failed' && on.includes('failed')) {
      await this.hooks.notify({ type: 'monitor.failed', job, data: { ...base, reason: run.reason }, occurred_at: occurred });
    }
    const wanted = changes.filter((c) => on.includes(c.kind));
    if (wanted.length === 0) return;
    const shown = wanted.slice(0, EVENT_CHANGES_LIMIT).map(({ _id, monitor_id: _m, user_id: _u, ...rest }) => ({ id: _id, ...rest }));
    try {
      await this.hooks.notify({
        type: 'monitor.changed',
        job,
        occurred_at: occurred,
        data: {
          ...base,
          changes_total: wanted.length,
          changes: shown,
          truncated: wanted.length > shown.length,
          changes_url: `/api/v1/monitors/${monitor._id}/changes?run_id=${encodeURIComponent(run._id)}`,
        },
      });
    } catch (error) {
      this.logger.error({ err: error, monitor_id: monitor._id }, 'monitor.changed could not be announced');
    }
  }
}
