import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { AppError, isStoreUnavailable, newId, SECRET_SEALER, type SecretSealer } from '@app/core';
import { splitOptionsFetchControl } from '@app/fetch';
import { paginateInput } from '@app/extraction';
import { JobIntakeService } from '@app/intake';
import { JobsService } from '@app/jobs';
import { openFetchSecrets, resolveCrawlOptions, validCrawlOptions, withSavedSecrets } from '@app/sites';
import { MonitorAnnouncer } from './monitor-announcer';
import { MonitorListJobs } from './monitor-list-jobs';
import { monitorLlm, monitorSecrets } from './monitor-llm';
import { MonitorRecords, MonitorRuntime } from './monitor-parts';
import { activeLockId } from './monitor-runs.repository';
import { emptyCounts, type MonitorRecord, type MonitorRunRecord, type RunTrigger } from './monitor.types';
import { refusalOf } from './run-refusal';

/** How long a run may stay `starting` (its replica died before the job existed) before its slot is freed. */
export const STARTING_TIMEOUT_MS = 5 * 60_000;

/** A monitor's runs act for its owner with the crawl scope only. */
export const monitorCaller = (monitor: MonitorRecord): Caller => ({
  userId: monitor.user_id,
  organizationId: monitor.organization_id,
  keyId: `monitor:${monitor._id}`,
  scopes: ['crawl'],
  fullAccess: false,
  isAdmin: false,
});

/**
 * Starts one run of a monitor: claims it (a scheduled run's id is `<monitor>:<slot>`, so a slot starts
 * once across replicas), takes the monitor's active-run lock (a monitor never has two runs at once: a
 * slot met while a run is going is recorded `skipped`), then records the run's job (a crawl, or a batch
 * for a list monitor), which carries `monitor_id` in its input.
 */
@Injectable()
export class MonitorLauncher {
  constructor(
    private readonly records: MonitorRecords,
    private readonly runtime: MonitorRuntime,
    private readonly intake: JobIntakeService,
    private readonly jobs: JobsService,
    private readonly announcer: MonitorAnnouncer,
    private readonly listJobs: MonitorListJobs,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
  ) {}

  /** The run, or null when another replica claimed this slot first. */
  async start(monitor: MonitorRecord, trigger: RunTrigger, dueAt: string): Promise<MonitorRunRecord | null>;
  async start(monitor: MonitorRecord, trigger: 'manual', dueAt: string): Promise<MonitorRunRecord>;
  async start(monitor: MonitorRecord, trigger: RunTrigger, dueAt: string): Promise<MonitorRunRecord | null> {
    const now = new Date(this.runtime.clock.now()).toISOString();
    const run: MonitorRunRecord = {
      _id: trigger === 'schedule' ? `${monitor._id}:${dueAt}` : `${monitor._id}:manual:${newId()}`,
      monitor_id: monitor._id,
      user_id: monitor.user_id,
      trigger,
      due_at: dueAt,
      status: 'starting',
      job_id: null,
      reason: null,
      counts: emptyCounts(),
      created_at: now,
      finished_at: null,
    };
    if (!(await this.records.runs.claim(run))) return null;
    if (!(await this.takeSlot(monitor._id, run._id))) {
      this.runtime.metrics.runs.inc({ outcome: 'skipped' });
      return (
        (await this.records.runs.set(run._id, { status: 'skipped', reason: 'the previous run was still going', finished_at: now })) ?? run
      );
    }
    try {
      const jobId = await this.createJob(monitor, run._id);
      this.runtime.metrics.runs.inc({ outcome: 'started' });
      await this.records.monitors.update(monitor._id, {
        $set: { last_run_id: run._id, last_run_at: now, last_run_status: 'running' },
        $inc: { runs_total: 1 },
      });
      return (await this.records.runs.set(run._id, { status: 'running', job_id: jobId })) ?? { ...run, status: 'running', job_id: jobId };
    } catch (error) {
      // A store outage is no refusal: the run stays `starting` and its slot is freed after STARTING_TIMEOUT_MS.
      if (isStoreUnavailable(error)) throw error;
      return this.refused(monitor, run, error, now);
    }
  }

  /**
   * A run that could not start (docs/monitors.md "Runs that cannot start"): its model, site or schema
   * gone, its sealed key unreadable, or any refusal at job creation. It is recorded `failed` with the
   * reason, on a job recorded failed at once (so `monitor.failed` goes out on it as for any failed run),
   * and counts as a failure in a row; its slot is freed.
   */
  private async refused(monitor: MonitorRecord, run: MonitorRunRecord, error: unknown, now: string): Promise<MonitorRunRecord> {
    const refusal = refusalOf(error);
    if (!(error instanceof AppError))
      this.runtime.logger.error({ err: error, monitor_id: monitor._id, run_id: run._id }, 'monitor run could not start');
    const job = await this.jobs.recordRefused(
      monitorCaller(monitor),
      {
        type: monitor.urls ? 'batch' : 'crawl',
        url: monitor.url ?? monitor.urls?.[0] ?? null,
        input: { url: monitor.url ?? monitor.urls?.[0] ?? null, monitor_id: monitor._id, monitor_run_id: run._id },
        requestId: `monitor:${run._id}`,
        webhookTargets: monitor.notify?.targets ?? [],
      },
      refusal,
    );
    this.runtime.metrics.runs.inc({ outcome: 'failed' });
    const failed: MonitorRunRecord = { ...run, status: 'failed', reason: refusal.message, job_id: job._id, finished_at: now };
    await this.records.runs.set(run._id, { status: 'failed', reason: refusal.message, job_id: job._id, finished_at: now });
    await this.records.runs.unlock(activeLockId(monitor._id), run._id);
    await this.records.monitors.update(monitor._id, {
      $set: { last_run_id: run._id, last_run_at: now, last_run_status: 'failed' },
      $inc: { runs_total: 1, consecutive_failures: 1 },
    });
    await this.announcer.announce(monitor, failed, job);
    return failed;
  }

  /** The active-run lock; a lock left by a run that never got its job (its replica died) is broken after a while. */
  private async takeSlot(monitorId: string, runId: string): Promise<boolean> {
    if (await this.records.runs.lock(activeLockId(monitorId), monitorId, runId, '')) return true;
    const holder = await this.records.runs.lockHolder(activeLockId(monitorId));
    if (!holder) return this.records.runs.lock(activeLockId(monitorId), monitorId, runId, '');
    const held = await this.records.runs.find(holder.run_id);
    const stale =
      !held ||
      held.status === 'completed' ||
      held.status === 'failed' ||
      held.status === 'skipped' ||
      (held.status === 'starting' && this.runtime.clock.now() - Date.parse(held.created_at) > STARTING_TIMEOUT_MS);
    if (!stale) return false;
    if (held?.status === 'starting')
      await this.records.runs.set(held._id, { status: 'failed', reason: 'its replica stopped before the crawl started' });
    await this.records.runs.unlock(activeLockId(monitorId), holder.run_id);
    return this.records.runs.lock(activeLockId(monitorId), monitorId, runId, '');
  }

  /**
   * The run's job: a crawl of the monitor's seed as POST /crawl would record it, or for a list monitor a
   * batch of its pages as POST /batch/extract would (MonitorListJobs); its schema, options and model.
   */
  private async createJob(monitor: MonitorRecord, runId: string): Promise<string> {
    const caller = monitorCaller(monitor);
    const site = await this.intake.site(caller, monitor.site_id ?? undefined);
    const { parsed, schemaId } = await this.intake.schema(
      caller,
      { schema: monitor.schema ?? undefined, schema_id: monitor.schema_id ?? undefined },
      site?.default_schema_id ?? null,
    );
    // Checked again: a saved schema or the site's default may have lost its list since (the run is then refused).
    const paginate = paginateInput(monitor.paginate ?? undefined, parsed.jsonSchema);
    // A model must be usable now (the owner's keys or chain may be gone): refused before any job exists, as POST /crawl is.
    await this.intake.plan(caller, monitorLlm(monitor, this.sealer));
    const saved = validCrawlOptions(site?.crawl_options);
    const defaults = { ...saved, fetch_mode: saved.fetch_mode ?? site?.fetch_mode };
    // The monitor's headers and cookies over the site's, name by name; they travel sealed with the job, as a crawl's do.
    const own = openFetchSecrets(this.sealer, monitor);
    const layer = {
      ...monitor.options,
      ...(Object.keys(own.headers).length > 0 ? { headers: own.headers } : {}),
      ...(Object.keys(own.cookies).length > 0 ? { cookies: own.cookies } : {}),
    };
    const llmSecrets = monitorSecrets(monitor, this.sealer);
    if (monitor.urls) {
      return this.listJobs.start(caller, {
        urls: monitor.urls,
        site,
        schema: parsed.jsonSchema,
        schemaId,
        paginate,
        options: withSavedSecrets(layer, this.intake.siteSecrets(site, monitor.urls, 'body.urls')),
        llmConfig: monitor.llm_config,
        extractionMode: monitor.extraction_mode,
        monitorId: monitor._id,
        runId,
        requestId: `monitor:${runId}`,
        webhookTargets: monitor.notify?.targets ?? [],
        secrets: llmSecrets,
      });
    }
    // The seed as the crawl keeps it (POST /crawl's intake canonicalises the same way: WHATWG URL serialisation).
    const url = new URL(this.intake.url(monitor.url ?? undefined, site)).href;
    const { options, secrets: fetchSecrets } = splitOptionsFetchControl(
      resolveCrawlOptions(withSavedSecrets(layer, this.intake.siteSecrets(site, [url], 'body.url')), defaults),
      'body.options',
    );
    const secrets = { ...llmSecrets, ...fetchSecrets };
    const job = await this.jobs.create(caller, {
      type: 'crawl',
      url,
      input: {
        url,
        schema: parsed.jsonSchema,
        schema_id: schemaId,
        ...(paginate ? { paginate } : {}),
        site_id: site?._id ?? null,
        llm_config: monitor.llm_config,
        options,
        extraction_mode: monitor.extraction_mode,
        monitor_id: monitor._id,
        monitor_run_id: runId,
      },
      requestId: `monitor:${runId}`,
      webhookTargets: monitor.notify?.targets ?? [],
      secrets,
    });
    return job.id;
  }
}
