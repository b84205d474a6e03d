import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { JobLifecycleHooks } from '@app/jobs';
import { MonitorFinisher } from './monitor-finisher';
import { MonitorLauncher } from './monitor-launcher';
import { MonitorRecords, MonitorRuntime } from './monitor-parts';
import { slotAfter } from './monitor-slots';
import { monitorRunIdOf } from './monitor-run-input';

/** Due monitors started per tick (the rest wait for the next tick). */
const DUE_BATCH = 100;
const DAY_MS = 86_400_000;
/** History is pruned once per this many ticks. */
const PRUNE_EVERY_TICKS = 600;

/**
 * The monitor scheduler (docs/monitors.md "Scheduling"). Every API replica may run it: a tick starts the
 * monitors whose next run is due and finishes the runs whose crawl ended. Nothing here is owned by one
 * replica: a slot is claimed by inserting its run (`<monitor>:<slot>`), so it starts once however many
 * replicas tick, and a replica killed at any point leaves nothing the others cannot carry on.
 * After downtime a monitor moves to the first slot after now: one catch-up run, not one per missed slot.
 */
@Injectable()
export class MonitorScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | null = null;
  private ticks = 0;

  constructor(
    private readonly records: MonitorRecords,
    private readonly runtime: MonitorRuntime,
    private readonly launcher: MonitorLauncher,
    private readonly finisher: MonitorFinisher,
    private readonly hooks: JobLifecycleHooks,
  ) {}

  onApplicationBootstrap(): void {
    // A run's crawl that ends in this process is finished at once; other replicas' by the sweep.
    this.hooks.register(async (event) => {
      if (!['job.completed', 'job.failed', 'job.cancelled'].includes(event.type)) return;
      const runId = monitorRunIdOf(event.job.input);
      if (runId === null) return;
      const run = await this.records.runs.find(runId);
      if (run) await this.finisher.finishIfDone(run);
    });
    if (!this.runtime.config.monitorScheduler) return;
    this.timer = setInterval(() => void this.tickOnce(), this.runtime.config.monitorTickMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }

  /** One tick at a time per replica; a tick that fails is logged and the next one tries again. */
  private async tickOnce(): Promise<void> {
    if (this.ticking) return;
    this.ticking = this.tick()
      .then(() => undefined)
      .catch((error: unknown) => this.runtime.logger.error({ err: error }, 'monitor scheduler tick failed'))
      .finally(() => (this.ticking = null));
    await this.ticking;
  }

  /** Starts what is due at the clock's now, finishes ended runs; returns the runs it started or skipped. */
  async tick(): Promise<string[]> {
    const now = this.runtime.clock.now();
    const started: string[] = [];
    const due = await this.records.monitors.due(new Date(now).toISOString(), DUE_BATCH);
    this.runtime.metrics.due.set(due.length);
    for (const monitor of due) {
      const slot = monitor.next_slot_at;
      if (!slot || monitor.paused) continue;
      const run = await this.launcher.start(monitor, 'schedule', slot);
      // Whoever claimed the slot, it is spent: the monitor moves to the first slot after now.
      await this.records.monitors.advance(
        monitor._id,
        slot,
        slotAfter(monitor, Math.max(now, Date.parse(slot)), this.runtime.config.monitorJitterMaxMs),
      );
      if (run) started.push(run._id);
    }
    const running = await this.records.runs.withStatus('running', 1000);
    this.runtime.metrics.running.set(running.length);
    for (const run of running) await this.finisher.finishIfDone(run);
    this.runtime.metrics.maxFailures.set(await this.records.monitors.maxConsecutiveFailures());
    if (this.ticks++ % PRUNE_EVERY_TICKS === 0) {
      await this.records.state.pruneChanges(new Date(now - this.runtime.config.monitorHistoryDays * DAY_MS).toISOString());
    }
    return started;
  }
}
