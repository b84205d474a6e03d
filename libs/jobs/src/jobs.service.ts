import { Injectable } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { AppError, type ErrorCategory, type SecretSealer } from '@app/core';
import type { EventBusPort } from '@app/events';
import type { AppLogger, Metrics } from '@app/observability';
import type { QueuePort } from '@app/queue';
import type { Caller } from '@app/auth';
import type { JobCompletion, JobResultFields } from './job-handler';
import type { JobDeletionHooks } from './job-deletion-hooks';
import { JobEventLog, type DrawnEvent, type PublishedPage } from './job-event-log';
import { JobLifecycle, type CreateJobInput, type UsageCounters } from './job-lifecycle';
import { JobListeners, JobRuntime } from './job-lifecycle-parts';
import type { JobLifecycleHooks } from './job-lifecycle-hooks';
import { JobMessages } from './job-messages';
import { JobSlots } from './job-slots';
import type { JobListFilter, JobsRepository } from './jobs.repository';
import type { JobClass, JobEventName, JobRecord, JobStatus, JobView } from './job.types';

export type { CreateJobInput, UsageCounters } from './job-lifecycle';

/** What JobsService.of builds its parts from (specs and tools that run without Nest). */
export interface JobsServiceParts {
  repository: JobsRepository;
  hooks: JobLifecycleHooks;
  deletion: JobDeletionHooks;
  queue: QueuePort;
  bus: EventBusPort;
  config: AppConfig;
  metrics: Metrics;
  logger: AppLogger;
  sealer: SecretSealer;
}

/**
 * The jobs facade callers inject: each method is one of its four parts', where it is implemented and specced
 * (docs/architecture.md "jobs"): JobLifecycle (records and status moves), JobEventLog (events and their
 * announcement), JobSlots (running slots and parking) and JobMessages (queue messages and their secrets).
 * New code may inject the part it needs instead.
 */
@Injectable()
export class JobsService {
  constructor(
    readonly lifecycle: JobLifecycle,
    readonly events: JobEventLog,
    readonly slots: JobSlots,
    readonly messages: JobMessages,
  ) {}

  /** The service and its parts, wired by name. */
  static of(parts: JobsServiceParts): JobsService {
    const { repository, hooks, deletion, queue, bus, config, metrics, logger, sealer } = parts;
    const events = new JobEventLog(repository, hooks, bus, config);
    const messages = new JobMessages(repository, queue, sealer, metrics);
    const slots = new JobSlots(repository, messages, config);
    const lifecycle = new JobLifecycle(
      repository,
      new JobListeners(hooks, deletion),
      events,
      slots,
      messages,
      new JobRuntime(bus, metrics, logger),
    );
    return new JobsService(lifecycle, events, slots, messages);
  }

  // JobLifecycle
  create(caller: Caller, input: CreateJobInput): Promise<JobView> {
    return this.lifecycle.create(caller, input);
  }

  recordRefused(
    caller: Caller,
    input: Omit<CreateJobInput, 'secrets'>,
    error: { category: ErrorCategory; message: string },
  ): Promise<JobRecord> {
    return this.lifecycle.recordRefused(caller, input, error);
  }

  list(caller: Caller, limit: number, offset: number, filter: JobListFilter = {}): Promise<{ jobs: JobView[]; total: number }> {
    return this.lifecycle.list(caller, limit, offset, filter);
  }

  get(caller: Caller, jobId: string): Promise<JobView> {
    return this.lifecycle.get(caller, jobId);
  }

  getRecord(caller: Caller, jobId: string): Promise<JobRecord> {
    return this.lifecycle.getRecord(caller, jobId);
  }

  cancel(caller: Caller, jobId: string): Promise<JobView> {
    return this.lifecycle.cancel(caller, jobId);
  }

  stop(jobId: string, message: string): Promise<JobRecord | null> {
    return this.lifecycle.stop(jobId, message);
  }

  delete(caller: Caller, jobId: string): Promise<void> {
    return this.lifecycle.delete(caller, jobId);
  }

  start(jobId: string): Promise<JobRecord | null> {
    return this.lifecycle.start(jobId);
  }

  finish(
    jobId: string,
    status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>,
    error?: { category: ErrorCategory; message: string },
    completion?: JobCompletion,
  ): Promise<JobRecord | null> {
    return this.lifecycle.finish(jobId, status, error, completion);
  }

  announceFinished(job: JobRecord): Promise<void> {
    return this.lifecycle.announceFinished(job);
  }

  waitForTerminal<I = unknown, R = unknown>(jobId: string, timeoutMs: number): Promise<JobRecord<I, R> | null> {
    return this.lifecycle.waitForTerminal<I, R>(jobId, timeoutMs);
  }

  recordUsage(jobId: string, inc: UsageCounters, set: JobResultFields = {}): Promise<JobRecord | null> {
    return this.lifecycle.recordUsage(jobId, inc, set);
  }

  progress(jobId: string, inc: Parameters<JobLifecycle['progress']>[1]): Promise<JobRecord | null> {
    return this.lifecycle.progress(jobId, inc);
  }

  // JobEventLog
  publishPages(job: JobRecord, pages: ReadonlyArray<PublishedPage>): Promise<void> {
    return this.events.publishPages(job, pages);
  }

  publishResult(job: JobRecord, item: Record<string, unknown>, exactlyOnce?: { dedupeKey: string; firstTime?: boolean }): Promise<boolean> {
    return this.events.publishResult(job, item, exactlyOnce);
  }

  emit(
    jobId: string,
    event: JobEventName,
    data: Record<string, unknown>,
    options: { dedupeKey?: string; onlyWhileRunning?: boolean; firstTime?: boolean } = {},
  ): Promise<boolean> {
    return this.events.emit(jobId, event, data, options);
  }

  /** Stores events under seqs the caller drew in its own write of the job (JobEventLog.storeDrawn). */
  storeDrawn(jobId: string, firstSeq: number, events: DrawnEvent[]): Promise<void> {
    return this.events.storeDrawn(jobId, firstSeq, events);
  }

  statusData(job: JobRecord): Record<string, unknown> {
    return this.events.statusData(job);
  }

  completeData(job: JobRecord): Record<string, unknown> {
    return this.events.completeData(job);
  }

  // JobSlots
  acquireSlot(userId: string, jobClass: JobClass): Promise<boolean> {
    return this.slots.acquireSlot(userId, jobClass);
  }

  releaseSlot(userId: string, jobClass: JobClass): Promise<void> {
    return this.slots.releaseSlot(userId, jobClass);
  }

  park(jobId: string): Promise<void> {
    return this.slots.park(jobId);
  }

  wakeParked(userId: string | null, limit: number, jobClass?: JobClass): Promise<number> {
    return this.slots.wakeParked(userId, limit, jobClass);
  }

  // JobMessages
  resendUnfinished(olderThanMs: number, limit = 500): Promise<number> {
    return this.messages.resendUnfinished(olderThanMs, limit);
  }

  openSecrets(sealed: string | undefined): Record<string, string> {
    return this.messages.openSecrets(sealed);
  }

  /** Errors raised while running a job become the job's error fields. */
  static describeFailure(error: unknown): { category: ErrorCategory; message: string } {
    if (error instanceof AppError) return { category: error.category ?? 'internal', message: error.detail ?? error.message };
    return { category: 'internal', message: 'Internal error while running the job.' };
  }
}
