import { Redis } from 'ioredis';
import type { DeliveryCount, DeliveryLedgerPort } from './delivery-ledger.port';

export interface RedisDeliveryLedgerOptions {
  /** Either a URL (the ledger owns the connection) or an existing client (the caller owns it). */
  redisUrl?: string;
  client?: Redis;
  keyPrefix?: string;
}

/** A scope's hash lives this long after this process last pushed its expiry back. */
export const LEDGER_TTL_MS = 24 * 60 * 60 * 1000;
/** A process pushes a scope's expiry back when it last did so longer ago than this: one PEXPIRE an hour, not one a page. */
const TOUCH_EVERY_MS = 60 * 60 * 1000;
/** Scopes whose last push this process remembers (the oldest forgotten first: it then pushes once more). */
const TOUCHED_KEPT = 10_000;

// KEYS[1] the scope's hash; ARGV[1] the deliveries field, ARGV[2] the runs-alone field ('' for none).
const UNCOUNT = `
for i = 1, 2 do
  local f = ARGV[i]
  if f ~= '' and tonumber(redis.call('HGET', KEYS[1], f) or '0') > 0 then redis.call('HINCRBY', KEYS[1], f, -1) end
end
return 1
`;

/**
 * The ledger in Redis (the cluster's): one hash per scope, a field per task (`<task id>`: deliveries) and, for a
 * task that ran alone, another (`a|<task id>`). Counting a delivery is one HINCRBY (and once an hour per scope and
 * process a PEXPIRE); the owner forgets a commit batch's tasks in one HDEL and drops the hash when its crawl ends,
 * so the hash holds about the tasks in flight. A Redis that loses its data (a restart without persistence) loses
 * the counts with the queue's tasks: a re-sent task starts counting again (docs/crawl.md "A page that kills its worker").
 */
export class RedisDeliveryLedger implements DeliveryLedgerPort {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  /** When this process last pushed back a scope's expiry, oldest first. */
  private readonly touched = new Map<string, number>();

  constructor(options: RedisDeliveryLedgerOptions) {
    if (options.client) {
      this.redis = options.client;
      this.ownsClient = false;
    } else {
      this.redis = new Redis(options.redisUrl!, { maxRetriesPerRequest: 3 });
      this.redis.on('error', () => undefined); // surfaced by the failing call
      this.ownsClient = true;
    }
    this.prefix = options.keyPrefix ?? 'gleaner:deliveries';
  }

  keyOf(scope: string): string {
    return `${this.prefix}:${scope}`;
  }

  async count(scope: string, taskId: string): Promise<number> {
    const key = this.keyOf(scope);
    const pipeline = this.redis.pipeline().hincrby(key, taskId, 1);
    const touch = this.dueTouch(scope);
    if (touch) pipeline.pexpire(key, LEDGER_TTL_MS);
    const replies = await pipeline.exec();
    const deliveries = Number(answer(replies, 0));
    if (touch) this.touchedNow(scope);
    return deliveries;
  }

  async ranAlone(scope: string, taskId: string): Promise<DeliveryCount> {
    const key = this.keyOf(scope);
    const replies = await this.redis.pipeline().hincrby(key, aloneField(taskId), 1).hget(key, taskId).pexpire(key, LEDGER_TTL_MS).exec();
    return { aloneRuns: Number(answer(replies, 0)), deliveries: Number(answer(replies, 1) ?? 0) };
  }

  async uncount(scope: string, taskId: string, alone: boolean): Promise<void> {
    await this.redis.eval(UNCOUNT, 1, this.keyOf(scope), taskId, alone ? aloneField(taskId) : '');
  }

  async forget(scope: string, taskIds: readonly string[]): Promise<void> {
    if (taskIds.length === 0) return;
    await this.redis.hdel(this.keyOf(scope), ...taskIds.flatMap((id) => [id, aloneField(id)]));
  }

  async drop(scope: string): Promise<void> {
    this.touched.delete(scope);
    await this.redis.del(this.keyOf(scope));
  }

  async close(): Promise<void> {
    if (!this.ownsClient || this.redis.status === 'end') return;
    await Promise.race([this.redis.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 500).unref())]);
    this.redis.disconnect();
  }

  private dueTouch(scope: string): boolean {
    const at = this.touched.get(scope);
    return at === undefined || Date.now() - at >= TOUCH_EVERY_MS;
  }

  private touchedNow(scope: string): void {
    this.touched.delete(scope);
    this.touched.set(scope, Date.now());
    if (this.touched.size > TOUCHED_KEPT) this.touched.delete(this.touched.keys().next().value!);
  }
}

const aloneField = (taskId: string): string => `a|${taskId}`;

/** The reply of a pipeline's i-th command; its error thrown. */
function answer(replies: [Error | null, unknown][] | null, i: number): unknown {
  const reply = replies?.[i];
  if (!reply) throw new Error('Redis answered no reply to the delivery ledger');
  if (reply[0]) throw reply[0];
  return reply[1];
}
