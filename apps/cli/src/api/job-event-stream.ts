import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, InterruptedError, UnreachableError } from '../errors';
import { loadSseParser } from '../util/esm';
import type { ApiClient } from './api-client';

export interface JobEvent {
  /** The per-job sequence number (`id:`): strictly increasing, the resume point. */
  id: number;
  event: string;
  data: unknown;
}

export type ConnectionState = { state: 'connected'; resumedFrom: number } | { state: 'reconnecting'; attempt: number; reason: string };

export interface FollowEventsOptions {
  jobId: string;
  /** Resume after this event id (0 = from the first event). */
  lastEventId?: number;
  signal: AbortSignal;
  /** Called once per event, in order, never twice for one id. Returning true ends the stream. */
  onEvent: (event: JobEvent) => boolean | void;
  onConnection?: (state: ConnectionState) => void;
  /** Give up when no connection could be made for this long (→ UnreachableError). */
  reconnectTimeoutMs: number;
  /** Reconnect when nothing (not even a heartbeat comment) arrived for this long. */
  idleTimeoutMs?: number;
}

const FIRST_RETRY_MS = 250;
const DEFAULT_RETRY_MS = 3000;

/**
 * Follows GET /jobs/{id}/stream until the `complete` event. A dropped connection (the service
 * restarted, a proxy cut it, nothing arrived for `idleTimeoutMs`) is resumed with `Last-Event-ID`
 * after a backoff that grows to the service's `retry:` advice; events at or below the last id seen
 * are dropped, so none is handled twice. Resolves with the id of the last event.
 */
export async function followJobEvents(client: ApiClient, options: FollowEventsOptions): Promise<number> {
  const { createParser } = await loadSseParser();
  let lastId = options.lastEventId ?? 0;
  let retryMs = DEFAULT_RETRY_MS;
  let attempt = 0;
  let failingSince: number | null = null;
  const path = `/api/v1/jobs/${encodeURIComponent(options.jobId)}/stream`;

  for (;;) {
    if (options.signal.aborted) throw abortReason(options.signal);
    const connection = new AbortController();
    const onAbort = () => connection.abort(options.signal.reason);
    options.signal.addEventListener('abort', onAbort, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    const touch = () => {
      if (!options.idleTimeoutMs) return;
      clearTimeout(idleTimer);
      idleTimer = setTimeout(
        () => connection.abort(new Error(`no data for ${Math.round(options.idleTimeoutMs! / 1000)} s`)),
        options.idleTimeoutMs,
      );
    };
    let ended = false;
    let handlerError: unknown;
    let failure: string;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
      if (lastId > 0) headers['last-event-id'] = String(lastId);
      touch();
      const response = await client.send('GET', path, { headers, signal: connection.signal, timeoutMs: 0 });
      attempt = 0;
      failingSince = null;
      options.onConnection?.({ state: 'connected', resumedFrom: lastId });
      const parser = createParser({
        onRetry: (ms) => (retryMs = ms),
        onEvent: (message) => {
          if (ended) return;
          const id = Number(message.id);
          if (!Number.isSafeInteger(id) || id <= lastId) return;
          let data: unknown;
          try {
            data = JSON.parse(message.data);
          } catch {
            data = message.data;
          }
          lastId = id;
          try {
            if (options.onEvent({ id, event: message.event ?? 'message', data }) === true || message.event === 'complete') ended = true;
          } catch (error) {
            // The consumer's own failure (a full disk…) is not a connection problem: stop and report it.
            handlerError ??= error;
            ended = true;
          }
        },
      });
      const decoder = new TextDecoder();
      const reader = response.body!.getReader();
      try {
        while (!ended) {
          const { value, done } = await reader.read();
          if (done) break;
          touch();
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } finally {
        if (ended) await reader.cancel().catch(() => undefined);
      }
      if (handlerError !== undefined) throw handlerError;
      if (ended) return lastId;
      failure = 'the service closed the stream';
    } catch (error) {
      if (handlerError !== undefined) throw handlerError;
      if (options.signal.aborted) throw abortReason(options.signal);
      // A job that is gone, or a key that stopped working, will not come back by retrying.
      if (error instanceof ApiError && [401, 403, 404, 410].includes(error.status)) throw error;
      failure =
        error instanceof UnreachableError
          ? error.reason
          : error instanceof ApiError
            ? `${error.status} ${error.message}`
            : describe(error, connection.signal);
    } finally {
      clearTimeout(idleTimer);
      options.signal.removeEventListener('abort', onAbort);
    }

    attempt++;
    failingSince ??= Date.now();
    if (Date.now() - failingSince > options.reconnectTimeoutMs) {
      throw new UnreachableError(
        client.baseUrl,
        `the job stream dropped and did not come back within ${Math.round(options.reconnectTimeoutMs / 1000)} s (${failure})`,
      );
    }
    options.onConnection?.({ state: 'reconnecting', attempt, reason: failure });
    const wait = Math.min(retryMs, FIRST_RETRY_MS * 2 ** Math.min(attempt - 1, 10));
    try {
      await delay(wait, undefined, { signal: options.signal });
    } catch {
      throw abortReason(options.signal);
    }
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new InterruptedError();
}

function describe(error: unknown, connection: AbortSignal): string {
  if (connection.aborted && connection.reason instanceof Error) return connection.reason.message;
  const err = error as { message?: string; cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(error);
}
