import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { nowIso, TENANT_ERASERS, type TenantErasers } from '@app/core';
import { MonitorRunsRepository } from './monitor-runs.repository';
import { MonitorStateRepository } from './monitor-state.repository';
import { MonitorsRepository } from './monitors.repository';

/**
 * A tenant's monitors in its deletion (docs/api.md "Users"): first they are all paused, so the scheduler
 * launches no run while the tenant's jobs are cancelled; then each goes with its runs, locks, page state,
 * items, changes and observations, the monitor record last (so a deletion that stops half way finds it again).
 */
@Injectable()
export class MonitorsTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly monitors: MonitorsRepository,
    private readonly runs: MonitorRunsRepository,
    private readonly state: MonitorStateRepository,
  ) {}

  onModuleInit(): void {
    this.erasers.register({
      name: 'monitor_schedules',
      phase: 'schedules',
      run: (userId) => this.monitors.pauseAllOf({ userId }, nowIso()),
    });
    this.erasers.register({ name: 'monitors', phase: 'data', run: (userId) => this.eraseAll(userId) });
  }

  async eraseAll(userId: string): Promise<number> {
    let erased = 0;
    for (;;) {
      const batch = await this.monitors.anyOf({ userId }, 100);
      if (batch.length === 0) return erased;
      for (const monitor of batch) {
        await this.runs.deleteMonitor(monitor._id);
        await this.state.deleteMonitor(monitor._id);
        await this.monitors.deleteOwn({ userId }, monitor._id);
        erased++;
      }
    }
  }
}
