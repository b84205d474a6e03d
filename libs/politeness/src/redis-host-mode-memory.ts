import type { Redis } from 'ioredis';
import type { HostModeMemory, RenderMode } from '@app/fetch';

/** Cluster mode: the fetch mode `auto` chose for a host, remembered for every replica (6 hours). */
export class RedisHostModeMemory implements HostModeMemory {
  constructor(
    private readonly client: Redis,
    private readonly ttlMs = 6 * 60 * 60 * 1000,
    private readonly prefix = 'gleaner:hostmode',
  ) {}

  async get(host: string): Promise<RenderMode | undefined> {
    const value = await this.client.get(`${this.prefix}:${host.toLowerCase()}`).catch(() => null);
    return value === 'static' || value === 'dynamic' ? value : undefined;
  }

  async set(host: string, mode: RenderMode): Promise<void> {
    // Best effort: losing this memory costs one extra static attempt, never a page.
    await this.client.set(`${this.prefix}:${host.toLowerCase()}`, mode, 'PX', this.ttlMs).catch(() => undefined);
  }
}
