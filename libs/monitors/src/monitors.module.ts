import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { IntakeModule } from '@app/intake';
import { JobsModule } from '@app/jobs';
import { WebhooksModule } from '@app/webhooks';
import { MonitorAnnouncer } from './monitor-announcer';
import { MonitorClock } from './monitor-clock';
import { MonitorFinisher } from './monitor-finisher';
import { MonitorLauncher } from './monitor-launcher';
import { MonitorMetrics } from './monitor-metrics';
import { MonitorPagesService } from './monitor-pages.service';
import { MonitorRecords, MonitorRuntime } from './monitor-parts';
import { MonitorRunsRepository } from './monitor-runs.repository';
import { MonitorScheduler } from './monitor-scheduler';
import { MonitorStateRepository } from './monitor-state.repository';
import { MonitorsRepository } from './monitors.repository';
import { MonitorsService } from './monitors.service';
import { MonitorsTenantErasure } from './monitors-tenant-erasure';

/**
 * API side: the monitor resource and the scheduler (every API replica may run it). `listJobs` is the
 * module that provides MonitorListJobs (the crawl lib's CrawlModule: list monitors run on its batch
 * engine, and that lib depends on this one, so the app names it here).
 */
@Module({})
export class MonitorsModule {
  static register(listJobs: Type<unknown>): DynamicModule {
    return {
      module: MonitorsModule,
      imports: [IntakeModule, JobsModule, WebhooksModule, listJobs],
      providers: [
        MonitorClock,
        MonitorMetrics,
        MonitorRecords,
        MonitorRuntime,
        MonitorsRepository,
        MonitorRunsRepository,
        MonitorStateRepository,
        MonitorAnnouncer,
        MonitorLauncher,
        MonitorFinisher,
        MonitorScheduler,
        MonitorsService,
        MonitorsTenantErasure,
      ],
      exports: [MonitorsService, MonitorScheduler, MonitorClock],
    };
  }
}

/** Crawler side: what page workers remember of a monitor's pages. */
@Module({ providers: [MonitorStateRepository, MonitorPagesService], exports: [MonitorPagesService] })
export class MonitorPagesModule {}
