import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/** A new ULID: 26 characters, sortable by creation time. */
export function newId(): string {
  return nextUlid();
}

/** RFC 3339 UTC timestamp with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
