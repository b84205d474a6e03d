import { Inject, Injectable } from '@nestjs/common';
import { EVENT_BUS, type EventBusPort } from '@app/events';
import { LOGGER, METRICS, type AppLogger, type Metrics } from '@app/observability';
import { JobDeletionHooks } from './job-deletion-hooks';
import { JobLifecycleHooks } from './job-lifecycle-hooks';

/*
 * What JobLifecycle is built from besides the store and its sibling parts, in two named groups instead of a long
 * positional constructor (docs/architecture.md "jobs"). Both are providers of JobsModule; JobsService.of builds them
 * by name where Nest does not run.
 */

/** Who hears of a job's life: the listeners of its status changes (webhooks, monitors) and of its deletion. */
@Injectable()
export class JobListeners {
  constructor(
    readonly hooks: JobLifecycleHooks,
    readonly deletion: JobDeletionHooks,
  ) {}
}

/** The jobs' event bus (the cancel and stream channels), metrics and log. */
@Injectable()
export class JobRuntime {
  constructor(
    @Inject(EVENT_BUS) readonly bus: EventBusPort,
    @Inject(METRICS) readonly metrics: Metrics,
    @Inject(LOGGER) readonly logger: AppLogger,
  ) {}
}
