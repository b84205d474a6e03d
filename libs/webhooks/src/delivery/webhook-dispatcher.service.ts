import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { BACKOFFS, newId, nowIso } from '@app/core';
import { JobLifecycleHooks, type JobLifecycleEvent } from '@app/jobs';
import { messageBackoff, QUEUE, type QueuePort } from '@app/queue';
import { subscribes } from '../webhook-events';
import { WebhooksRepository } from '../webhooks.repository';
import { OutboxRepository } from './outbox.repository';

export const WEBHOOKS_QUEUE = 'webhooks';
export const PUMP_STREAM = 'pump-stream';
export interface PumpPayload {
  stream: string;
}

/**
 * Turns job lifecycle events into durable outbox items (one per subscribed target) and wakes the
 * delivery pump. The item is stored before anything is sent, so a crash never loses an event that
 * was recorded, and its id is the stable Standard Webhooks message id across retries.
 */
@Injectable()
export class WebhookDispatcherService implements OnModuleInit {
  constructor(
    private readonly hooks: JobLifecycleHooks,
    private readonly outbox: OutboxRepository,
    private readonly webhooks: WebhooksRepository,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.hooks.register((event) => this.dispatch(event));
  }

  async dispatch(event: JobLifecycleEvent): Promise<void> {
    const targets = event.job.webhook_targets ?? [];
    for (const target of targets) {
      let events = target.events;
      if (target.kind === 'saved' && target.webhook_id) {
        const saved = await this.webhooks.findOwn({ userId: event.job.user_id }, target.webhook_id);
        if (!saved || !saved.is_active) continue; // deleted or muted
        events = saved.events;
      }
      if (!subscribes(events, event.type)) continue;
      const stream = `${event.job._id}:${target.key}`;
      // A page re-announced after a crash (same dedupe key) is already in the outbox: not again.
      if (event.dedupeKey && (await this.outbox.hasKey(stream, event.dedupeKey))) continue;
      const body = JSON.stringify({
        id: `evt_${newId()}`,
        type: event.type,
        created_at: event.occurred_at,
        job_id: event.job._id,
        job_type: event.job.type,
        data: event.data,
      });
      for (let attempt = 1; ; attempt++) {
        const seq = await this.outbox.nextSeq(stream);
        const now = nowIso();
        const inserted = await this.outbox.insertOnce({
          _id: `${stream}:${seq}`,
          stream,
          dedupe_key: event.dedupeKey ?? `#${seq}`,
          job_id: event.job._id,
          user_id: event.job.user_id,
          target_key: target.key,
          webhook_id: target.webhook_id,
          seq,
          event_type: event.type,
          body,
          status: 'pending',
          attempts: 0,
          next_at: now,
          created_at: now,
        });
        if (inserted) {
          await this.wake(stream);
          break;
        }
        // Refused: stored under its dedupe key by another writer meanwhile (already announced), or the seq
        // was handed out twice (a store whose counter is not exact under concurrency, such as the test
        // stand-in): never take the second for the first; draw another seq (a gap stays).
        if (event.dedupeKey && (await this.outbox.hasKey(stream, event.dedupeKey))) break;
        if (attempt >= 20) throw new Error(`no free webhook seq for stream ${stream} after ${attempt} attempts`);
      }
    }
  }

  /** Enqueues a pump for the stream; a unique message id per wake-up (the pump itself serialises). */
  async wake(stream: string, delayMs = 0): Promise<void> {
    await this.queue.enqueue<PumpPayload>(
      WEBHOOKS_QUEUE,
      PUMP_STREAM,
      { stream },
      { jobId: `pump:${stream}:${newId()}`, delayMs, attempts: 10, backoff: messageBackoff(BACKOFFS.webhookPump) },
    );
  }

  get maxAttempts(): number {
    return this.config.webhookMaxAttempts;
  }
}
