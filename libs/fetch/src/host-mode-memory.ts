import type { RenderMode } from './fetch-types';

/** Injection token: in-process in embedded mode, shared through Redis by every replica in cluster mode. */
export const HOST_MODE_MEMORY = Symbol('HOST_MODE_MEMORY');

/** Remembers per host which mode produced content, so auto mode skips a doomed static attempt. */
export interface HostModeMemory {
  get(host: string): Promise<RenderMode | undefined>;
  set(host: string, mode: RenderMode): Promise<void>;
}

export interface InMemoryHostModeMemoryOptions {
  maxEntries?: number;
  ttlMs?: number;
  now?: () => number;
}

/** Process-local LRU with TTL. A Redis-backed implementation can replace it behind the same interface. */
export class InMemoryHostModeMemory implements HostModeMemory {
  private readonly entries = new Map<string, { mode: RenderMode; expires: number }>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: InMemoryHostModeMemoryOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.ttlMs = options.ttlMs ?? 6 * 60 * 60 * 1000;
    this.now = options.now ?? Date.now;
  }

  get(host: string): Promise<RenderMode | undefined> {
    const key = host.toLowerCase();
    const entry = this.entries.get(key);
    if (!entry) return Promise.resolve(undefined);
    this.entries.delete(key);
    if (entry.expires <= this.now()) return Promise.resolve(undefined);
    this.entries.set(key, entry); // most recently used goes last
    return Promise.resolve(entry.mode);
  }

  set(host: string, mode: RenderMode): Promise<void> {
    const key = host.toLowerCase();
    this.entries.delete(key);
    this.entries.set(key, { mode, expires: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return Promise.resolve();
  }

  get size(): number {
    return this.entries.size;
  }
}
