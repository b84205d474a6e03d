import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { BACKOFFS, backoffMs, newId, SECRET_SEALER, type SecretSealer } from '@app/core';
import { guardFromSettings } from '@app/fetch';
import type { JobsRepository } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import { QUEUE, type QueueMessage, type QueuePort } from '@app/queue';
import { Counter, Histogram } from 'prom-client';
import type { WebhooksRepository } from '../webhooks.repository';
import type { OutboxItem, OutboxRepository } from './outbox.repository';
import { signWebhook } from './signature';
import { WebhookRecords, WebhookRuntime } from './webhook-delivery-parts';
import { WEBHOOKS_QUEUE, WebhookDispatcherService, type PumpPayload } from './webhook-dispatcher.service';
import { WebhookSender } from './webhook-sender';

interface ResolvedTarget {
  url: string;
  secret: string | null;
  headers: Array<{ name: string; value: string }>;
}

/**
 * The delivery engine: consumes pump messages, takes the stream's lease, and delivers its items
 * strictly in order: the head item is attempted; success moves on; failure schedules a retry
 * (later items wait behind it) until max attempts, then it is marked failed and the stream moves on.
 * Every attempt is a delivery record. State lives in the store, so restarts resume where they were.
 */
@Injectable()
export class WebhookPumpService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly sender: WebhookSender;
  private readonly deliveries: Counter<'outcome'>;
  private readonly latency: Histogram<'outcome'>;
  private sweeper?: NodeJS.Timeout;
  /**
   * A stream's lease: GLEANER_QUEUE_STALLED_MS, renewed before each attempt and every third of it while
   * held (also during a slow attempt), so a dead holder's stream is delivered again as soon as its queue
   * work is (docs/operations.md, Failover).
   */
  private readonly lockMs: number;

  private readonly outbox: OutboxRepository;
  private readonly webhooks: WebhooksRepository;
  private readonly jobs: JobsRepository;
  private readonly config: AppConfig;
  private readonly logger: AppLogger;

  constructor(
    records: WebhookRecords,
    private readonly dispatcher: WebhookDispatcherService,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
    runtime: WebhookRuntime,
  ) {
    ({ outbox: this.outbox, webhooks: this.webhooks, jobs: this.jobs } = records);
    const { config, logger, metrics } = runtime;
    this.config = config;
    this.logger = logger;
    this.lockMs = Math.max(1000, config.queueStalledMs);
    this.sender = new WebhookSender(guardFromSettings(config, logger), config.webhookTimeoutMs);
    this.deliveries = new Counter({
      name: 'gleaner_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (success; retrying: failed, another attempt is scheduled; failed: the last attempt failed). Unit: attempts.',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    for (const outcome of ['success', 'retrying', 'failed']) this.deliveries.inc({ outcome }, 0);
    this.latency = new Histogram({
      name: 'gleaner_webhook_delivery_duration_seconds',
      help: "Duration of webhook delivery attempts (request to the receiver's answer or the timeout), by outcome. Unit: seconds.",
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metrics.registry],
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.process<PumpPayload>(WEBHOOKS_QUEUE, 4, (message) => this.handle(message));
    // Safety net: items whose pump message was lost (e.g. Redis flushed) are woken again.
    this.sweeper = setInterval(
      () => void this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'webhook sweep failed')),
      15_000,
    );
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private async sweep(): Promise<void> {
    const stale = new Date(Date.now() - this.lockMs).toISOString();
    const streams = new Set((await this.outbox.due(stale, 100)).map((item) => item.stream));
    for (const stream of streams) await this.dispatcher.wake(stream);
  }

  private async handle(message: QueueMessage<PumpPayload>): Promise<void> {
    const { stream } = message.payload;
    for (;;) {
      const now = Date.now();
      if (!(await this.outbox.lock(stream, new Date(now + this.lockMs).toISOString(), new Date(now).toISOString()))) {
        // Another pump holds the lease. If it is alive it sees new items before letting go; if it
        // died, its lease runs out: come back then.
        const until = await this.outbox.lockedUntil(stream);
        if (until > now) await this.dispatcher.wake(stream, until - now + 100);
        return;
      }
      let waitMs: number | null = null;
      const lease = this.keepLease(stream);
      try {
        waitMs = await this.drain(stream);
      } finally {
        await lease.stop();
        await this.outbox.unlock(stream);
      }
      if (waitMs !== null) {
        await this.dispatcher.wake(stream, waitMs);
        return;
      }
      // Re-check after unlocking: an event recorded while we held the lease must not wait for a sweep.
      if (!(await this.outbox.head(stream))) return;
    }
  }

  /** Renews a held stream lease every third of it until stopped (a renewal in flight is awaited, so it never outlives the unlock). */
  private keepLease(stream: string): { stop(): Promise<void> } {
    let pending: Promise<void> = Promise.resolve();
    const timer = setInterval(
      () => {
        pending = this.outbox.renew(stream, new Date(Date.now() + this.lockMs).toISOString()).catch(() => undefined);
      },
      Math.max(100, Math.floor(this.lockMs / 3)),
    );
    return {
      stop: async () => {
        clearInterval(timer);
        await pending;
      },
    };
  }

  /** Delivers due items in order; returns ms until the head's next attempt, or null when empty. */
  private async drain(stream: string): Promise<number | null> {
    for (;;) {
      const item = await this.outbox.head(stream);
      if (!item) return null;
      const wait = Date.parse(item.next_at) - Date.now();
      if (wait > 0) return wait;
      const now = Date.now();
      await this.outbox.renew(stream, new Date(now + this.lockMs).toISOString());
      await this.attempt(item);
    }
  }

  private async attempt(item: OutboxItem): Promise<void> {
    // Attempts a dead process left in flight count as failed attempts (the receiver may or may not have seen them).
    for (const stale of await this.outbox.interruptedAttempts(item._id)) {
      await this.outbox.updateAttempt(stale._id, { status: 'failed', error_message: 'interrupted (the delivering process stopped)' });
    }
    const attemptNumber = item.attempts + 1;
    const maxAttempts = this.config.webhookMaxAttempts;
    const target = await this.resolveTarget(item);
    const attemptId = newId();
    const createdAt = new Date().toISOString();
    await this.outbox.updateItem(item._id, { attempts: attemptNumber });
    await this.outbox.insertAttempt({
      _id: attemptId,
      outbox_id: item._id,
      user_id: item.user_id,
      job_id: item.job_id,
      webhook_id: item.webhook_id,
      url: target?.url ?? '',
      event_type: item.event_type,
      status: 'pending',
      status_code: null,
      attempt_number: attemptNumber,
      max_attempts: maxAttempts,
      response_time_ms: null,
      error_message: null,
      created_at: createdAt,
      delivered_at: null,
    });

    const result = target
      ? await this.sender.send(target.url, this.headers(item, target), item.body)
      : { ok: false, statusCode: null, durationMs: 0, error: 'the webhook no longer exists' };
    const finalFailure = !result.ok && (attemptNumber >= maxAttempts || !target);
    const outcome = result.ok ? 'success' : finalFailure ? 'failed' : 'retrying';
    await this.outbox.updateAttempt(attemptId, {
      status: outcome,
      status_code: result.statusCode,
      response_time_ms: result.durationMs,
      error_message: result.error,
      delivered_at: result.ok ? new Date().toISOString() : null,
    });
    if (outcome === 'retrying') {
      const backoff = { ...BACKOFFS.webhook, baseMs: this.config.webhookRetryBaseMs, maxMs: this.config.webhookRetryMaxMs };
      const delay = backoffMs(backoff, attemptNumber);
      await this.outbox.updateItem(item._id, { status: 'retrying', next_at: new Date(Date.now() + delay).toISOString() });
    } else {
      await this.outbox.updateItem(item._id, { status: outcome });
    }
    this.deliveries.inc({ outcome });
    this.latency.observe({ outcome }, result.durationMs / 1000);
    this.logger.info(
      {
        job_id: item.job_id,
        event: item.event_type,
        attempt: attemptNumber,
        outcome,
        status_code: result.statusCode,
        ms: result.durationMs,
      },
      'webhook delivery attempt',
    );
  }

  private headers(item: OutboxItem, target: ResolvedTarget): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const h of target.headers) headers[h.name] = h.value;
    const timestamp = Math.floor(Date.now() / 1000);
    headers['content-type'] = 'application/json';
    headers['user-agent'] = `Gleaner-Webhooks/${this.config.version}`;
    headers['webhook-id'] = item._id;
    headers['webhook-timestamp'] = String(timestamp);
    if (target.secret) headers['webhook-signature'] = signWebhook(target.secret, item._id, timestamp, item.body);
    return headers;
  }

  private async resolveTarget(item: OutboxItem): Promise<ResolvedTarget | null> {
    if (item.webhook_id && item.target_key.startsWith('saved:')) {
      const saved = await this.webhooks.findOwn({ userId: item.user_id }, item.webhook_id);
      if (!saved) return null;
      return { url: saved.url, secret: saved.secret ? this.sealer.open(saved.secret) : null, headers: saved.headers };
    }
    const job = await this.jobs.findForWorker(item.job_id);
    const target = (job?.webhook_targets ?? []).find((t) => t.key === item.target_key);
    if (!target?.url) return null;
    return { url: target.url, secret: target.secret ? this.sealer.open(target.secret) : null, headers: target.headers };
  }
}
