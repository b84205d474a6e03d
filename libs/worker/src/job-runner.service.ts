import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, isStoreUnavailable } from '@app/core';
import { EVENT_BUS, type EventBusPort } from '@app/events';
import {
  CRAWLS_QUEUE,
  JOB_HANDLERS,
  JOB_TYPES,
  JOBS_QUEUE,
  JobsRepository,
  JobsService,
  isJobYielded,
  isTerminal,
  jobClassOf,
  jobControlChannel,
  type JobHandler,
  type JobRecord,
  type JobType,
  type RunJobPayload,
} from '@app/jobs';
import { LOGGER, type AppLogger } from '@app/observability';
import { HandBackError, QUEUE, type QueueMessage, type QueuePort } from '@app/queue';

class ShutdownSignal extends Error {}

/** The watchdog re-sends the queue messages of unfinished jobs this often, for jobs at least this old. */
const WATCHDOG_EVERY_MS = 15_000;
const WATCHDOG_AGE_MS = 30_000;

/** Raised at start-up when this worker would accept a job type it cannot run. */
export class MissingJobHandlerError extends Error {
  constructor(types: string[]) {
    super(`No handler for job type(s) ${types.join(', ')}: this worker refuses to start rather than fail such jobs.`);
    this.name = 'MissingJobHandlerError';
  }
}

/**
 * The crawler side of jobs: consumes the jobs queue (single-page jobs) and the crawls queue, each
 * with its own slots, enforces the per-user running caps, validates the stored input of the job's
 * type, runs its handler, and records the outcome exactly once. A message redelivered after a
 * worker died resumes a `running` job; one delivered for a finished job is dropped.
 */
@Injectable()
export class JobRunnerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly handlers = new Map<JobType, JobHandler>();
  private readonly shutdown = new AbortController();
  private sweeper?: NodeJS.Timeout;
  private watchdog?: NodeJS.Timeout;

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(EVENT_BUS) private readonly bus: EventBusPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(JOB_HANDLERS) handlers: JobHandler[],
    private readonly jobs: JobsService,
    private readonly repository: JobsRepository,
  ) {
    for (const handler of handlers) this.handlers.set(handler.type, handler);
  }

  async onApplicationBootstrap(): Promise<void> {
    const missing = JOB_TYPES.filter((type) => !this.handlers.has(type));
    if (missing.length > 0) throw new MissingJobHandlerError(missing);
    const handle = (message: QueueMessage<RunJobPayload>, signal: AbortSignal) => this.handle(message, signal);
    await this.queue.process<RunJobPayload>(JOBS_QUEUE, this.config.workerConcurrency, handle);
    await this.queue.process<RunJobPayload>(CRAWLS_QUEUE, this.config.crawlConcurrency, handle);
    // Safety net for parked jobs whose wake-up was missed (e.g. a crash between release and wake).
    this.sweeper = setInterval(() => {
      void this.jobs.wakeParked(null, 50).catch((error: unknown) => this.logger.warn({ err: error }, 'parked-job sweep failed'));
    }, 5000);
    this.sweeper.unref();
    this.watchdog = setInterval(() => {
      void this.jobs
        .resendUnfinished(WATCHDOG_AGE_MS)
        .catch((error: unknown) => this.logger.warn({ err: error }, 'job watchdog sweep failed'));
    }, WATCHDOG_EVERY_MS);
    this.watchdog.unref();
  }

  /**
   * Shutdown, first of all: running jobs (crawl actors) are told to stop, and every consumer of the
   * process (jobs, crawls, page tasks, webhooks) gets the grace to finish or hand its work back, while
   * the pools and clients that work uses are still open (they close in onApplicationShutdown).
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    clearInterval(this.watchdog);
    this.shutdown.abort(new ShutdownSignal());
    await this.queue.stop(this.config.shutdownGraceMs);
  }

  private async handle(message: QueueMessage<RunJobPayload>, queueSignal: AbortSignal): Promise<void> {
    const jobId = message.payload.job_id;
    const log = this.logger.child({ job_id: jobId, request_id: message.payload.request_id, attempt: message.attempt });
    let job = await this.repository.findForWorker(jobId);
    if (!job) return;
    const handler = this.handlers.get(job.type);
    if (isTerminal(job.status)) {
      await this.jobs.announceFinished(job);
      await handler?.onTerminal?.(job);
      return;
    }
    if (!handler) {
      await this.jobs.finish(jobId, 'failed', { category: 'internal', message: `No handler for job type ${job.type} on this worker.` });
      return;
    }
    let input: unknown;
    try {
      input = handler.parseInput(job.input);
    } catch (error) {
      log.error({ err: error }, 'stored job input does not match its job type');
      await this.jobs.finish(jobId, 'failed', { category: 'internal', message: `The stored input of this ${job.type} job is malformed.` });
      return;
    }

    const startedNow = job.status === 'pending';
    if (startedNow) {
      const started = await this.start(job);
      if (!started) return;
      job = started;
    }

    const controller = new AbortController();
    const onShutdown = () => controller.abort(new ShutdownSignal());
    queueSignal.addEventListener('abort', onShutdown, { once: true });
    this.shutdown.signal.addEventListener('abort', onShutdown, { once: true });
    const unsubscribe = await this.bus.subscribe(jobControlChannel(jobId), (msg) => {
      if ((msg as { type?: string }).type === 'cancel') controller.abort(new Error('cancelled'));
    });
    try {
      const secrets = this.jobs.openSecrets(message.payload.secrets);
      const completion = await handler.run({
        job,
        input,
        signal: controller.signal,
        jobs: this.jobs,
        attempt: message.attempt,
        startedNow,
        secrets,
        sealedSecrets: message.payload.secrets,
      });
      if (controller.signal.aborted) {
        // Not finished here, yet what the run used is the job's (a handed-back job resumes from its counters).
        if (completion) await this.jobs.recordUsage(jobId, completion.usage, completion.set);
        if (controller.signal.reason instanceof ShutdownSignal) throw new HandBackError();
        return; // cancelled: the API already finished the job
      }
      await this.jobs.finish(jobId, 'completed', undefined, completion ?? undefined);
    } catch (error) {
      if (error instanceof HandBackError || controller.signal.reason instanceof ShutdownSignal) {
        log.info('job handed back on shutdown');
        throw new HandBackError();
      }
      if (isJobYielded(error)) {
        log.warn({ reason: (error as Error).message }, 'job yielded: another worker owns it now');
        return;
      }
      if (controller.signal.aborted) return;
      // The store is down: not the job's failure (and recording one would fail too); the queue delivers it
      // again once the outage is over, without using up an attempt.
      if (isStoreUnavailable(error)) {
        log.warn({ err: error }, 'job attempt met a store outage; it resumes when the store is back');
        throw error;
      }
      const retryable = error instanceof AppError ? error.retryable : true;
      if (retryable && message.attempt < message.maxAttempts) {
        log.warn({ err: error }, 'job attempt failed; the queue will retry it');
        throw error;
      }
      if (!(error instanceof AppError)) log.error({ err: error }, 'job failed with an unexpected error');
      await this.jobs.finish(jobId, 'failed', JobsService.describeFailure(error));
    } finally {
      queueSignal.removeEventListener('abort', onShutdown);
      this.shutdown.signal.removeEventListener('abort', onShutdown);
      await unsubscribe().catch(() => undefined);
    }
  }

  /** pending → running under the user's running cap of the job's class; null when parked or no longer pending. */
  private async start(job: JobRecord): Promise<JobRecord | null> {
    const jobClass = jobClassOf(job.type);
    if (!(await this.jobs.acquireSlot(job.user_id, jobClass))) {
      await this.jobs.park(job._id);
      this.logger.debug({ job_id: job._id }, 'user at running-jobs cap; job parked');
      return null;
    }
    const started = await this.jobs.start(job._id);
    if (!started) await this.jobs.releaseSlot(job.user_id, jobClass); // cancelled (or started elsewhere) meanwhile
    return started;
  }
}
