import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { isStoreUnavailable } from '@app/core';
import { EVENT_BUS, type EventBusPort } from '@app/events';
import { METRICS, Metrics } from '@app/observability';
import type { Caller } from '@app/auth';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { jobChannel, type JobEventRecord } from './job.types';

/**
 * A sequence number is allocated (on the job) before its event is stored, so concurrent writers can
 * store seq n+1 before seq n. A gap younger than this is waited for rather than skipped: a reader
 * that sent n+1 would never send n. Older gaps are final (an event deduplicated after its seq was
 * allocated leaves one).
 */
export const SEQ_GAP_GRACE_MS = 10_000;

/**
 * The events that may be sent now, in order, after `lastSent`: stops before an event that follows a
 * gap (a missing seq) unless the gap is older than `graceMs` (judged by the later event's creation).
 */
export function sendableEvents<E extends { seq: number; created_at: string }>(
  events: E[],
  lastSent: number,
  now = Date.now(),
  graceMs = SEQ_GAP_GRACE_MS,
): { events: E[]; waiting: boolean } {
  const out: E[] = [];
  let previous = lastSent;
  for (const event of events) {
    if (event.seq !== previous + 1 && now - Date.parse(event.created_at) < graceMs) return { events: out, waiting: true };
    out.push(event);
    previous = event.seq;
  }
  return { events: out, waiting: false };
}

/** Reconnection delay advertised to EventSource clients. */
export const SSE_RETRY_MS = 3000;
/** Safety net: re-read the event log this often even without a bus notification. */
const POLL_MS = 2000;
/** While an out-of-order event is awaited, the log is read again this often. */
const GAP_RETRY_MS = 100;
/**
 * A stream reads the log at most once per this interval while events keep coming (a crawl announces
 * a hundred pages a second; one read each cost the embedded store a query per page per watcher). The
 * first event after a quiet spell is read at once.
 */
export const SSE_READ_EVERY_MS = 25;

/**
 * Wakes `read` now, or at the end of the current interval when it ran less than `everyMs` ago; wake-ups
 * in between are one. Returns the wake function and a cancel for the pending one.
 */
export function coalescedWake(read: () => void, everyMs: number, now: () => number = Date.now): { wake: () => void; cancel: () => void } {
  let last = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    timer = undefined;
    last = now();
    read();
  };
  return {
    wake() {
      if (timer) return;
      const wait = last + everyMs - now();
      if (wait <= 0) run();
      else timer = setTimeout(run, wait);
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

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
    let first = true;
    const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), this.config.sseHeartbeatMs);
    if (lastEventId > 0) {
      // A resuming client still gets the retry advice, as a field of its own.
      response.write(`retry: ${SSE_RETRY_MS}\n\n`);
      first = false;
    }
    const follower = await this.follow(jobId, lastEventId, {
      send: (event) => {
        response.write(formatSseEvent(event, first ? SSE_RETRY_MS : undefined));
        first = false;
      },
      closed: () => {
        clearInterval(heartbeat);
        this.metrics.sseClients.dec();
        if (!response.writableEnded) response.end();
      },
    });
    request.on('close', follower.close);
    response.on('close', follower.close);
  }

  /**
   * Follows a job's event log from after `lastEventId`: each event once, in order, to `send`, until the
   * `complete` event (sent, then the follower closes), `close()`, an unreadable log, or shutdown. The SSE
   * stream and the Firecrawl-compatible WebSocket watcher (libs/firecrawl) are its two readers.
   */
  async follow(
    jobId: string,
    lastEventId: number,
    sink: { send: (event: JobEventRecord) => void; closed: () => void },
  ): Promise<{ close: () => void }> {
    let lastSent = lastEventId;
    let closed = false;
    let pumping = false;
    let again = false;
    let gapTimer: NodeJS.Timeout | undefined;

    const poll = setInterval(() => void pump(), POLL_MS);
    const notified = coalescedWake(() => void pump(), SSE_READ_EVERY_MS);
    const unsubscribe = await this.bus.subscribe(jobChannel(jobId), () => notified.wake());

    const close = () => {
      if (closed) return;
      closed = true;
      this.open.delete(close);
      clearInterval(poll);
      clearTimeout(gapTimer);
      notified.cancel();
      void unsubscribe().catch(() => undefined);
      sink.closed();
    };
    this.open.add(close);

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
          const fetched = await this.repository.eventsAfter(jobId, lastSent);
          const { events, waiting } = sendableEvents(fetched, lastSent);
          // An event stored out of order is still being written: look again shortly.
          if (waiting) gapTimer ??= setTimeout(() => ((gapTimer = undefined), void pump()), GAP_RETRY_MS);
          for (const event of events) {
            if (closed) return;
            sink.send(event);
            lastSent = event.seq;
            if (event.event === 'complete') {
              close();
              return;
            }
          }
          if (!waiting && events.length === 500) again = true;
        } while (again && !closed);
      } catch (error) {
        // A store outage keeps the follower open (the poll reads again once the store is back).
        if (!isStoreUnavailable(error)) close();
      } finally {
        pumping = false;
      }
    };

    void pump();
    return { close };
  }
}
