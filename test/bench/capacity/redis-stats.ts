/**
 * Redis's own accounting, read with INFO: calls per command (commandstats; commands a Lua script runs
 * are counted under their own names, the script once under evalsha/eval) and the bytes it received and
 * sent (total_net_input_bytes / total_net_output_bytes). Snapshots are diffed; this reader's own INFO
 * calls are taken off.
 */
import { Redis } from 'ioredis';

export interface RedisSnapshot {
  /** command → calls */
  calls: Record<string, number>;
  net_input_bytes: number;
  net_output_bytes: number;
  /** CPU seconds of the server (user + system), as Redis reports it. */
  cpu_s: number;
}

export interface RedisDiff {
  calls: Record<string, number>;
  /** Every command Redis ran, those a Lua script ran included (commandstats counts them under their names). */
  total_calls: number;
  /** EVALSHA/EVAL calls: one round trip each, whatever the script runs inside. */
  script_calls: number;
  net_input_bytes: number;
  net_output_bytes: number;
  cpu_s: number;
}

/** The commands that run a script. */
const SCRIPT_CALLERS = new Set(['evalsha', 'eval', 'fcall', 'evalsha_ro', 'eval_ro']);

export function parseInfo(text: string): RedisSnapshot {
  const calls: Record<string, number> = {};
  let input = 0;
  let output = 0;
  let cpu = 0;
  for (const line of text.split(/\r?\n/)) {
    const stat = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (stat) {
      calls[stat[1]] = Number(stat[2]);
      continue;
    }
    const [name, value] = line.split(':');
    if (name === 'total_net_input_bytes') input = Number(value);
    else if (name === 'total_net_output_bytes') output = Number(value);
    else if (name === 'used_cpu_sys' || name === 'used_cpu_user') cpu += Number(value);
  }
  return { calls, net_input_bytes: input, net_output_bytes: output, cpu_s: cpu };
}

export class RedisStats {
  private readonly client: Redis;
  /** INFO calls this reader made (taken off the `info` count). */
  private reads = 0;

  constructor(url: string) {
    this.client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  }

  async snapshot(): Promise<RedisSnapshot> {
    this.reads++;
    const text = await this.client.info('everything');
    return parseInfo(text);
  }

  /**
   * `after - before`; `ownReads` INFO calls of this reader fall between them (their commands and bytes
   * are taken off the totals: their bytes only approximately, as their size varies little).
   */
  static diff(after: RedisSnapshot, before: RedisSnapshot, ownReads = 1): RedisDiff {
    const calls: Record<string, number> = {};
    let total = 0;
    for (const [cmd, n] of Object.entries(after.calls)) {
      let d = n - (before.calls[cmd] ?? 0);
      if (cmd === 'info') d -= ownReads;
      if (d <= 0) continue;
      calls[cmd] = d;
      total += d;
    }
    const scriptCalls = Object.entries(calls)
      .filter(([cmd]) => SCRIPT_CALLERS.has(cmd))
      .reduce((a, [, n]) => a + n, 0);
    return {
      calls: Object.fromEntries(Object.entries(calls).sort((a, b) => b[1] - a[1])),
      total_calls: total,
      script_calls: scriptCalls,
      net_input_bytes: after.net_input_bytes - before.net_input_bytes,
      net_output_bytes: after.net_output_bytes - before.net_output_bytes,
      cpu_s: Math.round((after.cpu_s - before.cpu_s) * 1000) / 1000,
    };
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => undefined);
  }
}
