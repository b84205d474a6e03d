import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * ulid's own PRNG asks the OS for one byte per character (16 calls per id); this one draws the same
 * cryptographic bytes 4 KiB at a time. byte / 256 is in [0, 1) and, 256 being a multiple of 32, maps
 * uniformly onto ulid's 32-character alphabet.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function pooledRandom(): number {
  if (poolAt >= pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++] / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/** A new ULID: 26 characters, sortable by creation time. */
export function newId(): string {
  return nextUlid();
}

let lastMs = NaN;
let lastIso = '';

/** RFC 3339 UTC timestamp with milliseconds (formatted once per millisecond: a page's records ask for it a dozen times). */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
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
