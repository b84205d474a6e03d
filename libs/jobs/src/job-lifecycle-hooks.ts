import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, type AppLogger } from '@app/observability';
import type { JobRecord } from './job.types';
import { pastStoreOutage } from './store-retry';

/**
 * `monitor.*` are announced on a monitor's run job (libs/monitors) when the run's changes are recorded;
 * `auth_profile.failing` on the job whose page met the login failure that made its auth profile failing.
 */
export type JobLifecycleEventType =
  | 'job.started'
  | 'job.page'
  | 'job.completed'
  | 'job.failed'
  | 'job.cancelled'
  | 'monitor.changed'
  | 'monitor.failed'
  | 'auth_profile.failing';

export interface JobLifecycleEvent {
  type: JobLifecycleEventType;
  job: JobRecord;
  /** The job resource for job.*, the result item for job.page. */
  data: Record<string, unknown>;
  occurred_at: string;
  /** Set when the event may be announced again (after a crash, or a store outage met while announcing): listeners store it once. */
  dedupeKey?: string;
}

export type JobLifecycleListener = (event: JobLifecycleEvent) => Promise<void>;

/**
 * Observers of the job lifecycle (webhooks, later metrics): the jobs lib announces, other libs
 * listen, so jobs never depends on them. Listeners run in order of occurrence and a failing
 * listener never fails the job. A listener that meets a store outage is run again until the store
 * answers (its event would be lost otherwise); every event carries a dedupe key for that.
 */
@Injectable()
export class JobLifecycleHooks {
  private readonly listeners: JobLifecycleListener[] = [];

  constructor(@Inject(LOGGER) private readonly logger: AppLogger) {}

  register(listener: JobLifecycleListener): void {
    this.listeners.push(listener);
  }

  async notify(event: JobLifecycleEvent): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await pastStoreOutage(
          () => listener(event),
          () => this.logger.warn({ job_id: event.job._id, event: event.type }, 'job lifecycle listener waits for the store'),
        );
      } catch (error) {
        this.logger.error({ err: error, job_id: event.job._id, event: event.type }, 'job lifecycle listener failed');
      }
    }
  }
}
