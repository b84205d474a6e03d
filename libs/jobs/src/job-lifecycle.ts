import { Injectable } from '@nestjs/common';
import { Errors, isStoreUnavailable, newId, nowIso, storeErrorWith, type ErrorCategory } from '@app/core';
import type { EventBusPort } from '@app/events';
import type { AppLogger, Metrics } from '@app/observability';
import type { Caller } from '@app/auth';
import type { JobCompletion, JobResultFields } from './job-handler';
import type { JobDeletionHooks } from './job-deletion-hooks';
import { JobEventLog } from './job-event-log';
import type { JobLifecycleHooks } from './job-lifecycle-hooks';
import { JobListeners, JobRuntime } from './job-lifecycle-parts';
import { JobMessages } from './job-messages';
import { JobSlots } from './job-slots';
import { pastStoreOutage } from './store-retry';
import { JobsRepository, type JobListFilter } from './jobs.repository';
import {
  isTerminal,
  jobClassOf,
  jobChannel,
  jobControlChannel,
  NOT_STARTED,
  toJobView,
  type JobRecord,
  type JobStatus,
  type JobType,
  type JobView,
  type JobWebhookTarget,
} from './job.types';

/** The job record's usage counters, in the order `finish` reads them back. */
const USAGE_COUNTERS = [
  'page_count',
  'failed_count',
  'token_usage_input',
  'token_usage_output',
  'cost_usd',
  'llm_cost_usd',
  'ungrounded_fields',
] as const satisfies ReadonlyArray<keyof JobRecord>;

/** The counters a page adds to its job (JobsService.recordUsage): fields of the job record. */
export type UsageCounters = Partial<Record<(typeof USAGE_COUNTERS)[number], number>>;

export interface CreateJobInput {
  type: JobType;
  url: string | null;
  captureDebug?: boolean;
  /** The job type's input (its handler validates it when the job runs). */
  input: object;
  requestId?: string | null;
  /** Webhook targets resolved at request time (see @app/webhooks). */
  webhookTargets?: JobWebhookTarget[];
  /** Secrets for the worker only (BYOK key): sealed into the queue message, never stored on the job. */
  secrets?: Record<string, string>;
}

/**
 * Job records and their lifecycle: create, start, finish, cancel, delete, wait. Every status change goes through
 * JobsRepository.transition (the single enforcement point) and is followed by its events (JobEventLog) and the
 * lifecycle listeners (webhooks); a finished job frees its slot and wakes a parked one (JobSlots).
 */
@Injectable()
export class JobLifecycle {
  private readonly hooks: JobLifecycleHooks;
  private readonly deletion: JobDeletionHooks;
  private readonly bus: EventBusPort;
  private readonly metrics: Metrics;
  private readonly logger: AppLogger;

  constructor(
    private readonly repository: JobsRepository,
    listeners: JobListeners,
    private readonly events: JobEventLog,
    private readonly slots: JobSlots,
    private readonly messages: JobMessages,
    runtime: JobRuntime,
  ) {
    ({ hooks: this.hooks, deletion: this.deletion } = listeners);
    ({ bus: this.bus, metrics: this.metrics, logger: this.logger } = runtime);
    this.metrics.addCollector(async () => {
      for (const row of await this.repository.countByTypeAndStatus()) {
        this.metrics.jobs.set({ type: row.type, status: row.status }, row.count);
      }
    });
  }

  async create(caller: Caller, input: CreateJobInput): Promise<JobView> {
    // The job is stored with its first event's seq drawn: nobody else can hold seq 1 of a new job.
    const job = { ...this.newRecord(caller, input), event_seq: 1 };
    await this.repository.insert(job);
    this.metrics.jobTransitions.inc({ type: job.type, status: 'pending' });
    try {
      await this.events.storeDrawn(job._id, 1, [{ event: 'status', data: this.events.statusData(job) }]);
      // The job id doubles as the queue message id: a retried request can never run a job twice.
      await this.messages.sendRun(job, job._id, this.messages.sealSecrets(input.secrets));
    } catch (error) {
      // The job is stored: the store's or the queue's 503 names it (the watchdog sends a lost message again).
      throw storeErrorWith(error, { job_id: job._id }) ?? error;
    }
    return toJobView(job);
  }

  /**
   * A job refused before it could start, recorded `failed` at once and never queued: work started by no
   * caller (a monitor's scheduled run) keeps a job that says why, and the events of its failure (the
   * `complete` stream event, `job.failed`) go out on it as on any failed job. No secret is kept.
   */
  async recordRefused(
    caller: Caller,
    input: Omit<CreateJobInput, 'secrets'>,
    error: { category: ErrorCategory; message: string },
  ): Promise<JobRecord> {
    const at = nowIso();
    const job: JobRecord = {
      ...this.newRecord(caller, input),
      status: 'failed',
      completed_at: at,
      error_category: error.category,
      error_message: error.message,
      event_seq: 2,
    };
    await this.repository.insert(job);
    this.metrics.jobTransitions.inc({ type: job.type, status: 'failed' });
    await this.events.storeDrawn(job._id, 1, [
      { event: 'status', data: this.events.statusData(job) },
      { event: 'complete', data: this.events.completeData(job), dedupeKey: 'complete' },
    ]);
    await this.hooks.notify({ type: 'job.failed', job, data: { ...toJobView(job) }, occurred_at: at, dedupeKey: 'job.finished' });
    return job;
  }

  private newRecord(caller: Caller, input: Omit<CreateJobInput, 'secrets'>): JobRecord {
    return {
      _id: newId(),
      user_id: caller.userId,
      organization_id: caller.organizationId,
      type: input.type,
      status: 'pending',
      url: input.url,
      capture_debug: input.captureDebug ?? false,
      created_at: nowIso(),
      ...NOT_STARTED,
      event_seq: 0,
      holds_slot: false,
      request_id: input.requestId ?? null,
      // A JSON copy: undefined fields are left out rather than stored (MongoDB would keep them as null).
      input: JSON.parse(JSON.stringify(input.input)) as Record<string, unknown>,
      webhook_targets: input.webhookTargets ?? [],
    };
  }

  /** A page of the caller's jobs, newest first, with how many match `filter` (docs/api.md "Jobs"). */
  async list(caller: Caller, limit: number, offset: number, filter: JobListFilter = {}): Promise<{ jobs: JobView[]; total: number }> {
    const owner = { userId: caller.userId };
    const [jobs, total] = await Promise.all([
      this.repository.listOwn(owner, limit, offset, filter),
      this.repository.countOwn(owner, filter),
    ]);
    return { jobs: jobs.map(toJobView), total };
  }

  async get(caller: Caller, jobId: string): Promise<JobView> {
    return toJobView(await this.getRecord(caller, jobId));
  }

  async getRecord(caller: Caller, jobId: string): Promise<JobRecord> {
    const job = await this.repository.findOwn({ userId: caller.userId }, jobId);
    if (!job) throw Errors.notFound('Job');
    return job;
  }

  async cancel(caller: Caller, jobId: string): Promise<JobView> {
    const job = await this.getRecord(caller, jobId);
    if (isTerminal(job.status)) throw Errors.conflict(`Job is already ${job.status}; only pending or running jobs can be cancelled.`);
    const updated = await this.stop(job._id, 'Cancelled by the caller.');
    if (!updated) throw Errors.conflict('Job finished before it could be cancelled.');
    return toJobView(updated);
  }

  /**
   * Cancels a pending or running job and tells the process running it (its crawl stops on the crawler).
   * Returns the cancelled job, or null when it had finished already.
   */
  async stop(jobId: string, message: string): Promise<JobRecord | null> {
    const updated = await this.finish(jobId, 'cancelled', { category: 'cancelled', message });
    if (updated) await this.bus.publish(jobControlChannel(jobId), { type: 'cancel' });
    return updated;
  }

  /**
   * DELETE /jobs/{id}: a finished job's results, crawl map, events and the archived pages only it
   * referenced go (the libs that keep them are JobDeletionHooks listeners); the job is then no longer found.
   */
  async delete(caller: Caller, jobId: string): Promise<void> {
    const job = await this.getRecord(caller, jobId);
    if (!isTerminal(job.status)) throw Errors.conflict(`Job is ${job.status}; only finished jobs can be deleted (cancel it first).`);
    await this.deletion.run(job);
    await this.repository.markDeleted(job._id);
  }

  /** pending → running. Returns the running job, or null when the job is no longer pending. */
  async start(jobId: string): Promise<JobRecord | null> {
    const before = await this.repository.transition(jobId, 'running', { started_at: nowIso(), holds_slot: true }, ['pending'], 1);
    if (!before) return null;
    const job = { ...before, status: 'running' as const, holds_slot: true, event_seq: before.event_seq + 1 };
    this.metrics.jobTransitions.inc({ type: job.type, status: 'running' });
    await this.events.storeDrawn(jobId, job.event_seq, [{ event: 'status', data: this.events.statusData(job) }]);
    await this.hooks.notify({ type: 'job.started', job, data: { ...toJobView(job) }, occurred_at: nowIso(), dedupeKey: 'job.started' });
    return job;
  }

  /**
   * Moves a job to a terminal status, releases its running slot, and emits the final status and
   * `complete` events. Returns the finished job, or null if it had already finished (exactly one
   * caller wins, so `complete` is emitted exactly once).
   */
  async finish(
    jobId: string,
    status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>,
    error?: { category: ErrorCategory; message: string },
    completion?: JobCompletion,
  ): Promise<JobRecord | null> {
    const patch: Record<string, unknown> = { completed_at: nowIso(), holds_slot: false, ...(completion?.set ?? {}) };
    if (error) {
      patch.error_category = error.category;
      patch.error_message = error.message;
    }
    // The move draws the seqs of its two events (status, complete) in the same write, and adds the run's last counters.
    const before = await this.repository.transition(jobId, status, patch, undefined, 2, completion?.usage);
    if (!before) {
      // Finished meanwhile (a cancel): what the run used is still the job's.
      if (completion) await this.recordUsage(jobId, completion.usage, completion.set);
      return null;
    }
    // The job is finished in the store: what follows must happen even across a store outage, or the
    // stream's `complete` and the terminal webhook would be lost (nothing redoes a finished job).
    const outage = () => this.logger.warn({ job_id: jobId, status }, 'finishing the job waits for the store');
    if (before.holds_slot) {
      const jobClass = jobClassOf(before.type);
      await pastStoreOutage(() => this.repository.releaseSlot(before.user_id, jobClass), outage);
      await pastStoreOutage(() => this.slots.wakeParked(before.user_id, 1, jobClass), outage);
    }
    const job = { ...before, ...patch, ...added(before, completion?.usage), status, event_seq: before.event_seq + 2 } as JobRecord;
    this.metrics.jobTransitions.inc({ type: job.type, status });
    await pastStoreOutage(
      () => this.events.storeDrawn(jobId, before.event_seq + 1, [{ event: 'status', data: this.events.statusData(job) }]),
      outage,
    );
    await pastStoreOutage(
      () =>
        this.events.storeDrawn(jobId, before.event_seq + 2, [
          { event: 'complete', data: this.events.completeData(job), dedupeKey: 'complete' },
        ]),
      outage,
    );
    await this.hooks.notify({ type: `job.${status}`, job, data: { ...toJobView(job) }, occurred_at: nowIso(), dedupeKey: 'job.finished' });
    this.logger.info({ job_id: jobId, request_id: job.request_id, status, error_category: job.error_category }, 'job finished');
    return job;
  }

  /**
   * The follow-ups of `finish` again, for a job found finished by a delivery of its queue message: the run that
   * finished it may have met a store outage (or died) after the transition and before its `complete` event and
   * terminal webhook were stored. Both carry dedupe keys, so a job whose follow-ups went out gets nothing twice.
   */
  async announceFinished(job: JobRecord): Promise<void> {
    if (job.status !== 'completed' && job.status !== 'failed' && job.status !== 'cancelled') return;
    const stored = await this.events.emit(job._id, 'complete', this.events.completeData(job), { dedupeKey: 'complete' });
    if (stored) this.logger.warn({ job_id: job._id, status: job.status }, 'finished job: its complete event was missing and is stored now');
    await this.hooks.notify({
      type: `job.${job.status}`,
      job,
      data: { ...toJobView(job) },
      occurred_at: nowIso(),
      dedupeKey: 'job.finished',
    });
  }

  /**
   * Waits until the job is terminal (completed, failed, cancelled) or the time is up; returns the
   * job as last seen. Subscribes before reading, so a completion between the two is not missed.
   */
  async waitForTerminal<I = unknown, R = unknown>(jobId: string, timeoutMs: number): Promise<JobRecord<I, R> | null> {
    let wake: () => void = () => undefined;
    // A message that does not say the job finished (a progress event) is no reason to read it; one without
    // `event` comes from a process of an earlier version, which does not say.
    const unsubscribe = await this.bus.subscribe(jobChannel(jobId), (message) => {
      const { event, terminal } = (message ?? {}) as { event?: unknown; terminal?: unknown };
      if (terminal === true || event === undefined) wake();
    });
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        let job: JobRecord<I, R> | null | undefined;
        try {
          // The store keeps JSON: `I` and `R` name what the job type's handler wrote (JobHandler<I, R>), here and only here.
          job = (await this.repository.findForWorker(jobId)) as JobRecord<I, R> | null;
        } catch (error) {
          // A store outage shorter than the wait is ridden out; a longer one reaches the caller.
          if (!isStoreUnavailable(error) || Date.now() >= deadline) throw error;
        }
        if (job === null || (job && isTerminal(job.status))) return job;
        const left = deadline - Date.now();
        if (left <= 0 && job !== undefined) return job;
        // Woken by the job's events; a slow poll covers a lost notification.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 1000));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      await unsubscribe();
    }
  }

  /** Adds a page's usage to the job (tokens, cost) and sets its extraction facts (model, timings). */
  async recordUsage(jobId: string, inc: UsageCounters, set: JobResultFields = {}): Promise<JobRecord | null> {
    // The status event's seq is drawn in the same write as the counters.
    const job = await this.repository.update(jobId, { $inc: { ...inc, event_seq: 1 }, ...(Object.keys(set).length ? { $set: set } : {}) });
    if (job) await this.events.storeDrawn(jobId, job.event_seq, [{ event: 'status', data: this.events.statusData(job) }]);
    return job;
  }

  /** Progress counters (page_count, cost, tokens...) with a status event. */
  async progress(
    jobId: string,
    inc: Partial<Record<'page_count' | 'urls_queued' | 'failed_count' | 'token_usage_input' | 'token_usage_output' | 'cost_usd', number>>,
  ): Promise<JobRecord | null> {
    const job = await this.repository.update(jobId, { $inc: { ...inc, event_seq: 1 } });
    if (job) await this.events.storeDrawn(jobId, job.event_seq, [{ event: 'status', data: this.events.statusData(job) }]);
    return job;
  }
}

/** The job's counters after `inc` was added to them (what the store computed in the same write). */
function added(before: JobRecord, inc: UsageCounters | undefined): UsageCounters {
  const after: UsageCounters = {};
  for (const field of USAGE_COUNTERS) {
    const value = inc?.[field];
    if (value !== undefined) after[field] = (before[field] ?? 0) + value;
  }
  return after;
}
