import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError } from '@app/core';
import { EVENT_BUS, type EventBusPort } from '@app/events';
import { JOBS_QUEUE, JobsRepository, JobsService, isTerminal, jobControlChannel, type RunJobPayload } from '@app/jobs';
import { LOGGER, type AppLogger } from '@app/observability';
import { HandBackError, QUEUE, type QueueMessage, type QueuePort } from '@app/queue';
import { JOB_HANDLERS, type JobHandler } from './job-handler';

class ShutdownSignal extends Error {}

/**
 * The crawler side of jobs: consumes the jobs queue, enforces the per-user running cap, runs the
 * handler of the job's type, and records the outcome exactly once. A message redelivered after a
 * worker died resumes a `running` job; one delivered for a finished job is dropped.
 */
@Injectable()
export class JobRunnerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly shutdown = new AbortController();
  private sweeper?: NodeJS.Timeout;

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
    await this.queue.process<RunJobPayload>(JOBS_QUEUE, this.config.workerConcurrency, (message, signal) => this.handle(message, signal));
    // Safety net for parked jobs whose wake-up was missed (e.g. a crash between release and wake).
    this.sweeper = setInterval(() => {
      void this.jobs.wakeParked(null, 50).catch((error: unknown) => this.logger.warn({ err: error }, 'parked-job sweep failed'));
    }, 5000);
    this.sweeper.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    this.shutdown.abort(new ShutdownSignal());
    await this.queue.stop(this.config.shutdownGraceMs);
  }

  private async handle(message: QueueMessage<RunJobPayload>, queueSignal: AbortSignal): Promise<void> {
    const jobId = message.payload.job_id;
    const log = this.logger.child({ job_id: jobId, request_id: message.payload.request_id, attempt: message.attempt });
    let job = await this.repository.findForWorker(jobId);
    if (!job || isTerminal(job.status)) return;
    const handler = this.handlers.get(job.type);
    if (!handler) {
      await this.jobs.finish(jobId, 'failed', { category: 'internal', message: `No handler for job type ${job.type} on this worker.` });
      return;
    }

    if (job.status === 'pending') {
      if (!(await this.jobs.acquireSlot(job.user_id))) {
        await this.jobs.park(jobId);
        log.debug('user at running-jobs cap; job parked');
        return;
      }
      const started = await this.jobs.start(jobId);
      if (!started) {
        await this.jobs.releaseSlot(job.user_id); // cancelled (or started elsewhere) meanwhile
        return;
      }
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
      await handler.run({ job, signal: controller.signal, jobs: this.jobs, attempt: message.attempt, secrets });
      if (controller.signal.reason instanceof ShutdownSignal) throw new HandBackError();
      if (controller.signal.aborted) return; // cancelled: the API already finished the job
      await this.jobs.finish(jobId, 'completed');
    } catch (error) {
      if (error instanceof HandBackError || controller.signal.reason instanceof ShutdownSignal) {
        log.info('job handed back on shutdown');
        throw new HandBackError();
      }
      if (controller.signal.aborted) return;
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
}
