/**
 * One run of the capacity benchmark, cut into phases: `idle` (the apps up, nothing asked: what they spend
 * on their own per second), `crawl` (POST /crawl to the job's end, the client polling the job once a
 * second) and `read` (the crawl's results read back once, as JSON lines). Each phase is the difference of
 * two snapshots of everything counted: CPU and disk writes per process, the store's commands and bytes
 * (MongoDB wire) or statements (SQLite), Redis's commands and bytes, and the model calls.
 */
import { readFileSync } from 'node:fs';
import type { ModelServer } from '../../fixtures/model-server';
import { sleep } from '../crawl/procs';
import { countModelRequests, type ModelCounts } from './model-tokens';
import { diffCounts, type MongoWireCounter, type WireCounts } from './mongo-wire-counter';
import { ProcMeter, type ProcSample } from './proc-meter';
import { RedisStats, type RedisDiff, type RedisSnapshot } from './redis-stats';

export interface SqlStatement {
  n: number;
  ms: number;
  bytes_in: number;
  bytes_out: number;
}

export interface SqlCounts {
  commits: number;
  statements: Record<string, SqlStatement>;
}

interface Snapshot {
  at: number;
  procs: Record<string, ProcSample>;
  mongo?: WireCounts;
  redis?: RedisSnapshot;
  sql?: SqlCounts;
  modelRequests: number;
}

export interface Phase {
  seconds: number;
  procs: Record<string, ProcSample>;
  mongo?: WireCounts;
  redis?: RedisDiff;
  sql?: SqlCounts;
  model: ModelCounts;
}

/** What a run counts with, beyond the processes' CPU (absent parts are not counted). */
export interface Counters {
  meter: ProcMeter;
  models: ModelServer;
  mongo?: MongoWireCounter;
  redis?: RedisStats;
  /** The file count-sqlite.cjs writes its counts to (once a second). */
  sqlCountsFile?: string;
}

function readSqlCounts(file: string): SqlCounts {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as SqlCounts;
    return { commits: parsed.commits, statements: parsed.statements };
  } catch {
    return { commits: 0, statements: {} };
  }
}

function diffSql(after: SqlCounts, before: SqlCounts): SqlCounts {
  const statements: Record<string, SqlStatement> = {};
  for (const [key, a] of Object.entries(after.statements)) {
    const b = before.statements[key] ?? { n: 0, ms: 0, bytes_in: 0, bytes_out: 0 };
    if (a.n === b.n) continue;
    statements[key] = {
      n: a.n - b.n,
      ms: Math.round((a.ms - b.ms) * 10) / 10,
      bytes_in: a.bytes_in - b.bytes_in,
      bytes_out: a.bytes_out - b.bytes_out,
    };
  }
  return { commits: after.commits - before.commits, statements };
}

export class PhaseRecorder {
  private last?: Snapshot;

  constructor(private readonly counters: Counters) {}

  private async snapshot(): Promise<Snapshot> {
    if (this.counters.sqlCountsFile) await sleep(1_200); // the counts file is rewritten once a second
    return {
      at: Date.now(),
      procs: this.counters.meter.sample(),
      mongo: this.counters.mongo?.snapshot(),
      redis: await this.counters.redis?.snapshot(),
      sql: this.counters.sqlCountsFile ? readSqlCounts(this.counters.sqlCountsFile) : undefined,
      modelRequests: this.counters.models.requests.length,
    };
  }

  /** Marks the start of the next phase. */
  async start(): Promise<void> {
    this.last = await this.snapshot();
  }

  /** Ends the phase begun by the last `start`/`end` and starts the next one at the same instant. */
  async end(): Promise<Phase> {
    const before = this.last;
    if (!before) throw new Error('PhaseRecorder.end() before start()');
    const after = await this.snapshot();
    this.last = after;
    return {
      seconds: Math.round(after.at - before.at) / 1000,
      procs: ProcMeter.diff(after.procs, before.procs),
      mongo: after.mongo && before.mongo ? diffCounts(after.mongo, before.mongo) : undefined,
      redis: after.redis && before.redis ? RedisStats.diff(after.redis, before.redis) : undefined,
      sql: after.sql && before.sql ? diffSql(after.sql, before.sql) : undefined,
      model: countModelRequests(this.counters.models.requests.slice(before.modelRequests, after.modelRequests)),
    };
  }
}
