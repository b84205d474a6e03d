import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { LOGGER, type AppLogger } from '@app/observability';
import { MonitorClock } from './monitor-clock';
import { MonitorMetrics } from './monitor-metrics';
import { MonitorRunsRepository } from './monitor-runs.repository';
import { MonitorStateRepository } from './monitor-state.repository';
import { MonitorsRepository } from './monitors.repository';

/*
 * What the monitor services (MonitorsService, MonitorLauncher, MonitorScheduler) share, in two named groups
 * instead of repeating them in each long positional constructor. Both are providers of MonitorsModule.
 */

/** A monitor's records: the monitors, their runs, and what the runs saw of each URL. */
@Injectable()
export class MonitorRecords {
  constructor(
    readonly monitors: MonitorsRepository,
    readonly runs: MonitorRunsRepository,
    readonly state: MonitorStateRepository,
  ) {}
}

/** The monitors' clock (their schedules and slots), metrics, log and config. */
@Injectable()
export class MonitorRuntime {
  constructor(
    readonly clock: MonitorClock,
    readonly metrics: MonitorMetrics,
    @Inject(LOGGER) readonly logger: AppLogger,
    @Inject(APP_CONFIG) readonly config: AppConfig,
  ) {}
}
