import { Injectable } from '@nestjs/common';
import { newId, roundUsd } from '@app/core';
import { JobsRepository, isTerminal, type JobRecord } from '@app/jobs';
import { MonitorAnnouncer } from './monitor-announcer';
import { MonitorClock } from './monitor-clock';
import { MonitorMetrics } from './monitor-metrics';
import { activeLockId, finishLockId, MonitorRunsRepository } from './monitor-runs.repository';
import { MonitorStateRepository } from './monitor-state.repository';
import {
  emptyCounts,
  type MonitorChangeRecord,
  type MonitorObservation,
  type MonitorRecord,
  type MonitorRunRecord,
  type RunCounts,
} from './monitor.types';
import { MonitorsRepository } from './monitors.repository';
import { compareRun } from './run-diff';
import { pageStateId } from './state-ids';
import { keyPlan } from './units';
import { runSchemaOf } from './monitor-run-input';

/** A replica that died while recording a run's changes holds its finish lock this long. */
const FINISH_LOCK_MS = 10 * 60_000;

/**
 * The end of a run: once its crawl job is terminal, the run's page observations are compared with the
 * monitor's records (run-diff.ts), the changes stored, the records and page memory updated, the run's
 * counts written, the slot freed, and `monitor.changed` / `monitor.failed` announced on the run's job
 * (signed, ordered and retried by the webhook engine). Each run is finished once: a lock named after it.
 */
@Injectable()
export class MonitorFinisher {
  constructor(
    private readonly monitors: MonitorsRepository,
    private readonly runs: MonitorRunsRepository,
    private readonly state: MonitorStateRepository,
    private readonly jobs: JobsRepository,
    private readonly announcer: MonitorAnnouncer,
    private readonly clock: MonitorClock,
    private readonly metrics: MonitorMetrics,
  ) {}

  /** Finishes the run if its job is terminal (from the scheduler's sweep, or the job's own end in this process). */
  async finishIfDone(run: MonitorRunRecord): Promise<boolean> {
    if (run.status !== 'running' || !run.job_id) return false;
    const job = await this.jobs.findForWorker(run.job_id);
    if (job && !isTerminal(job.status)) return false;
    if (!(await this.takeLock(run))) return false;
    const fresh = await this.runs.find(run._id);
    if (!fresh || fresh.status !== 'running') return false;
    await this.finish(fresh, job);
    return true;
  }

  private async takeLock(run: MonitorRunRecord): Promise<boolean> {
    const until = new Date(this.clock.now() + FINISH_LOCK_MS).toISOString();
    if (await this.runs.lock(finishLockId(run._id), run.monitor_id, run._id, until)) return true;
    const holder = await this.runs.lockHolder(finishLockId(run._id));
    if (!holder || Date.parse(holder.until) > this.clock.now()) return false;
    await this.runs.unlock(finishLockId(run._id), run._id);
    return this.runs.lock(finishLockId(run._id), run.monitor_id, run._id, until);
  }

  private async finish(run: MonitorRunRecord, job: JobRecord | null): Promise<void> {
    const now = new Date(this.clock.now()).toISOString();
    const monitor = await this.monitors.findById(run.monitor_id);
    const observations: MonitorObservation[] = [];
    if (job) for await (const o of this.state.observationsOf(job._id)) observations.push(o);
    const completed = job?.status === 'completed';
    const counts = pageCounts(observations);
    if (!monitor) {
      // Deleted while the run went on: the run's findings go with it.
      if (job) await this.state.dropObservations(job._id);
      return;
    }
    const plan = keyPlan(runSchemaOf(job?.input), monitor.key);
    const items = [];
    for await (const item of this.state.itemsOf(monitor._id)) items.push(item);
    const comparison = compareRun({
      monitorId: monitor._id,
      plan: 'plan' in plan ? plan.plan : { list: null, fields: [] },
      silentAdds: !monitor.baseline_done && monitor.first_run === 'baseline',
      removeAfterMisses: monitor.remove_after_misses,
      runCompleted: completed,
      listed: monitor.urls ? new Set(monitor.urls) : null,
      observations,
      items,
      now,
    });
    const changes: MonitorChangeRecord[] = comparison.changes.map((c) => ({
      _id: newId(),
      monitor_id: monitor._id,
      user_id: monitor.user_id,
      run_id: run._id,
      detected_at: now,
      ...c,
    }));
    await this.state.addChanges(changes);
    for (const item of comparison.save) await this.state.saveItem(item);
    for (const id of comparison.remove) await this.state.deleteItem(id);
    await this.rememberPages(monitor, observations);
    if (job) await this.state.dropObservations(job._id);

    Object.assign(counts, comparison.counts);
    const status = completed ? 'completed' : 'failed';
    const reason = completed ? null : (job?.error_message ?? `The run's crawl ended ${job?.status ?? 'missing'}.`);
    await this.runs.set(run._id, { status, reason, counts, finished_at: now });
    await this.runs.unlock(activeLockId(monitor._id), run._id);
    await this.monitors.update(monitor._id, {
      $set: {
        last_run_status: status,
        ...(completed ? { consecutive_failures: 0, baseline_done: true } : {}),
      },
      ...(completed ? {} : { $inc: { consecutive_failures: 1 } }),
    });
    this.record(status, counts, comparison.counts, observations);
    if (job) await this.announcer.announce(monitor, { ...run, status, reason, counts, finished_at: now }, job, changes);
  }

  /**
   * What each page was this run, for the next run's conditional requests, hash check and links. A page
   * seen exactly as remembered gets only its visit time, in one bulk write for all of them (its earliest
   * visit: a sitemap lastmod after it fetches the page again, never the other way round).
   */
  private async rememberPages(monitor: MonitorRecord, observations: MonitorObservation[]): Promise<void> {
    const same: string[] = [];
    let earliest: string | null = null;
    for (const o of observations) {
      if (o.kind !== 'extracted' && o.kind !== 'unchanged' && o.kind !== 'navigation') continue;
      if (o.memory_same) {
        same.push(pageStateId(monitor._id, o.url));
        if (earliest === null || o.at < earliest) earliest = o.at;
        continue;
      }
      await this.state.savePage({
        _id: pageStateId(monitor._id, o.url),
        monitor_id: monitor._id,
        url: o.url,
        etag: o.etag,
        last_modified: o.last_modified,
        text_hash: o.text_hash,
        links: o.links,
        data: o.data,
        // When the page worker saw it (real time: sitemap lastmods are compared with it).
        fetched_at: o.at,
        misses: 0,
      });
    }
    if (earliest !== null) await this.state.touchPages(same, earliest);
  }

  private record(
    status: string,
    counts: RunCounts,
    kinds: { added: number; changed: number; removed: number },
    observations: MonitorObservation[],
  ): void {
    this.metrics.runs.inc({ outcome: status });
    for (const how of ['extracted', 'failed', 'gone'] as const) {
      const n = observations.filter((o) => o.kind === how).length;
      if (n) this.metrics.pages.inc({ how }, n);
    }
    for (const kind of ['added', 'changed', 'removed'] as const) if (kinds[kind]) this.metrics.changes.inc({ kind }, kinds[kind]);
    const saved = counts.not_modified + counts.skipped_by_hash + counts.skipped_by_lastmod;
    if (counts.not_modified) this.metrics.pages.inc({ how: 'not_modified' }, counts.not_modified);
    if (counts.skipped_by_hash) this.metrics.pages.inc({ how: 'hash' }, counts.skipped_by_hash);
    if (counts.skipped_by_lastmod) this.metrics.pages.inc({ how: 'lastmod' }, counts.skipped_by_lastmod);
    if (saved) this.metrics.modelCallsSaved.inc(saved);
  }
}

/** The page counts of a run from what its page workers saw. */
function pageCounts(observations: MonitorObservation[]): RunCounts {
  const counts = emptyCounts();
  for (const o of observations) {
    if (o.via !== 'lastmod') counts.pages_fetched++;
    if (o.via === 'not_modified') counts.not_modified++;
    if (o.via === 'hash') counts.skipped_by_hash++;
    if (o.via === 'lastmod') counts.skipped_by_lastmod++;
    if (o.model_call) counts.model_calls++;
    counts.tokens_input += o.tokens_input;
    counts.tokens_output += o.tokens_output;
    counts.cost_usd += o.cost_usd;
  }
  counts.cost_usd = roundUsd(counts.cost_usd);
  return counts;
}
