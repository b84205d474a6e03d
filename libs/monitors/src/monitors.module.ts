import { Module } from '@nestjs/common';
import { IntakeModule } from '@app/intake';
import { JobsModule } from '@app/jobs';
import { WebhooksModule } from '@app/webhooks';
import { MonitorClock } from './monitor-clock';
import { MonitorFinisher } from './monitor-finisher';
import { MonitorLauncher } from './monitor-launcher';
import { MonitorMetrics } from './monitor-metrics';
import { MonitorPagesService } from './monitor-pages.service';
import { MonitorRunsRepository } from './monitor-runs.repository';
import { MonitorScheduler } from './monitor-scheduler';
import { MonitorStateRepository } from './monitor-state.repository';
import { MonitorsRepository } from './monitors.repository';
import { MonitorsService } from './monitors.service';
import { MonitorsTenantErasure } from './monitors-tenant-erasure';

/** API side: the monitor resource and the scheduler (every API replica may run it). */
@Module({
  imports: [IntakeModule, JobsModule, WebhooksModule],
  providers: [
    MonitorClock,
    MonitorMetrics,
    MonitorsRepository,
    MonitorRunsRepository,
    MonitorStateRepository,
    MonitorLauncher,
    MonitorFinisher,
    MonitorScheduler,
    MonitorsService,
    MonitorsTenantErasure,
  ],
  exports: [MonitorsService, MonitorScheduler, MonitorClock],
})
export class MonitorsModule {}

/** Crawler side: what page workers remember of a monitor's pages. */
@Module({ providers: [MonitorStateRepository, MonitorPagesService], exports: [MonitorPagesService] })
export class MonitorPagesModule {}
