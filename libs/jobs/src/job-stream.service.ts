import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { EVENT_BUS, type EventBusPort } from '@app/events';
import { METRICS, Metrics } from '@app/observability';
import type { Caller } from '@app/auth';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { jobChannel, type JobEventRecord } from './job.types';

/** Reconnection delay advertised to EventSource clients. */
export const SSE_RETRY_MS = 3000;
/** Safety net: re-read the event log this often even without a bus notification. */
const POLL_MS = 2000;

export function formatSseEvent(event: JobEventRecord, retryMs?: number): string {
  const lines = [`id: ${event.seq}`, `event: ${event.event}`];
  if (retryMs !== undefined) lines.push(`retry: ${retryMs}`);
  lines.push(`data: ${JSON.stringify(event.data)}`);
  return `${lines.join('\n')}\n\n`;
}

export function parseLastEventId(value: string | string[] | undefined): number {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return 0;
  const n = Number(raw.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/**
 * Job stream (SSE). Events come from the persisted per-job event log, so a client that reconnects
 * to any replica with Last-Event-ID gets exactly the events after that id. The bus only wakes the
 * stream up; a slow poll covers lost notifications. The stream ends after the `complete` event.
 */
@Injectable()
export class JobStreamService implements BeforeApplicationShutdown {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly jobs: JobsService,
    private readonly repository: JobsRepository,
    @Inject(EVENT_BUS) private readonly bus: EventBusPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  /** Ends every open stream on shutdown; clients reconnect (to another replica) with Last-Event-ID. */
  beforeApplicationShutdown(): void {
    for (const close of [...this.open]) close();
  }

  /** Checks access first (404 before any byte of the stream is written). */
  async authorize(caller: Caller, jobId: string): Promise<void> {
    await this.jobs.getRecord(caller, jobId);
  }

  async stream(
    jobId: string,
    lastEventId: number,
    request: IncomingMessage,
    response: ServerResponse,
    headers: Record<string, string>,
  ): Promise<void> {
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.flushHeaders?.();
    this.metrics.sseClients.inc();

    let lastSent = lastEventId;
    let first = true;
    let closed = false;
    let pumping = false;
    let again = false;

    const heartbeat = setInterval(() => {
      if (!closed) response.write(': heartbeat\n\n');
    }, this.config.sseHeartbeatMs);
    const poll = setInterval(() => void pump(), POLL_MS);
    const unsubscribe = await this.bus.subscribe(jobChannel(jobId), () => void pump());

    const close = () => {
      if (closed) return;
      closed = true;
      this.open.delete(close);
      clearInterval(heartbeat);
      clearInterval(poll);
      this.metrics.sseClients.dec();
      void unsubscribe().catch(() => undefined);
      if (!response.writableEnded) response.end();
    };
    this.open.add(close);
    request.on('close', close);
    response.on('close', close);

    // Serialised: one reader at a time, re-run when woken during a read, so events go out once and in order.
    const pump = async (): Promise<void> => {
      if (closed) return;
      if (pumping) {
        again = true;
        return;
      }
      pumping = true;
      try {
        do {
          again = false;
          const events = await this.repository.eventsAfter(jobId, lastSent);
          for (const event of events) {
            if (closed) return;
            response.write(formatSseEvent(event, first ? SSE_RETRY_MS : undefined));
            first = false;
            lastSent = event.seq;
            if (event.event === 'complete') {
              close();
              return;
            }
          }
          if (events.length === 500) again = true;
        } while (again && !closed);
      } catch {
        close();
      } finally {
        pumping = false;
      }
    };

    if (first && lastEventId > 0) {
      // A resuming client still gets the retry advice, as a field of its own.
      response.write(`retry: ${SSE_RETRY_MS}\n\n`);
      first = false;
    }
    await pump();
  }
}
