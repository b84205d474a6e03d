import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fetchError } from './errors';

/** cgroup v1 reports "no limit" as a page-rounded 2^63-1; anything this large is no limit either. */
const NO_LIMIT = 2 ** 62;

export interface MemoryReading {
  /** The container's memory limit (the smallest one on its cgroup path), null without one. */
  limitBytes: number | null;
  /** Memory in use that the kernel cannot simply drop: usage minus inactive file cache (what an OOM kill weighs). */
  workingSetBytes: number | null;
}

export interface CgroupMemoryOptions {
  /** Where the cgroup file systems are mounted (default /sys/fs/cgroup). */
  root?: string;
  /** This process's cgroup membership (default /proc/self/cgroup). */
  selfCgroup?: string;
}

/**
 * Reads this process's container memory limit and working set: cgroup v2 (`memory.max`, `memory.current`,
 * `memory.stat` inactive_file), or v1 as fallback (`memory/memory.limit_in_bytes`, `memory.usage_in_bytes`,
 * total_inactive_file). The limit is the smallest along the cgroup's path up to the root (a parent's limit
 * binds its children); a cgroup path that is not visible here (another namespace) falls back to the root.
 */
export class CgroupMemory {
  private readonly root: string;
  private readonly selfCgroup: string;

  constructor(options: CgroupMemoryOptions = {}) {
    this.root = options.root ?? '/sys/fs/cgroup';
    this.selfCgroup = options.selfCgroup ?? '/proc/self/cgroup';
  }

  read(): MemoryReading {
    const membership = readText(this.selfCgroup) ?? '';
    const v2 = /^0::(.*)$/m.exec(membership)?.[1];
    if (v2 !== undefined) {
      const reading = this.readV2(v2.trim());
      if (reading) return reading;
    }
    const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(membership)?.[1];
    return this.readV1((v1 ?? '/').trim()) ?? { limitBytes: null, workingSetBytes: null };
  }

  private readV2(path: string): MemoryReading | null {
    const dirs = ancestors(this.root, path).filter((dir) => readText(join(dir, 'memory.current')) !== null);
    if (dirs.length === 0) return null;
    const own = dirs[0];
    let limit: number | null = null;
    for (const dir of dirs) {
      const max = readNumber(join(dir, 'memory.max'));
      if (max !== null && max < NO_LIMIT) limit = limit === null ? max : Math.min(limit, max);
    }
    const current = readNumber(join(own, 'memory.current'));
    const inactive = statField(join(own, 'memory.stat'), 'inactive_file') ?? 0;
    return { limitBytes: limit, workingSetBytes: current === null ? null : Math.max(0, current - inactive) };
  }

  private readV1(path: string): MemoryReading | null {
    const dirs = ancestors(join(this.root, 'memory'), path).filter((dir) => readText(join(dir, 'memory.usage_in_bytes')) !== null);
    if (dirs.length === 0) return null;
    const own = dirs[0];
    let limit: number | null = null;
    for (const dir of dirs) {
      const max = readNumber(join(dir, 'memory.limit_in_bytes'));
      if (max !== null && max < NO_LIMIT) limit = limit === null ? max : Math.min(limit, max);
    }
    const usage = readNumber(join(own, 'memory.usage_in_bytes'));
    const inactive = statField(join(own, 'memory.stat'), 'total_inactive_file') ?? 0;
    return { limitBytes: limit, workingSetBytes: usage === null ? null : Math.max(0, usage - inactive) };
  }
}

export interface MemoryAdmissionOptions {
  /** Share of the memory limit past which no new browser page opens (0 < share ≤ 1; 1 turns admission off). */
  share: number;
  /** Where the readings come from (default: this process's cgroup). */
  memory?: { read(): MemoryReading };
  /** How often a waiting page looks again (default 250 ms). */
  pollMs?: number;
  /** How long a page waits for memory before it fails retryable, to be tried again later (default 60 s). */
  maxWaitMs?: number;
}

export interface MemoryAdmissionStats {
  limitBytes: number | null;
  /** Pages waiting for memory now. */
  waiting: number;
  /** Pages that had to wait, since start. */
  waited: number;
  /** Pages that waited longer than maxWaitMs and were handed back to be tried later. */
  deferred: number;
}

/**
 * Memory-aware admission of browser pages: a new page opens only while the container's working set is
 * under `share` of its memory limit; past it, the page waits for memory to come back (pages finishing
 * free it), and after `maxWaitMs` fails as a retryable fetch error, so the crawl tries it again later.
 * Without a container limit it admits everything (docs/operations.md "Browser memory").
 */
export class MemoryAdmission {
  private readonly memory: { read(): MemoryReading };
  private readonly pollMs: number;
  private readonly maxWaitMs: number;
  private waiting = 0;
  private waited = 0;
  private deferred = 0;
  private limit: number | null | undefined;

  constructor(private readonly options: MemoryAdmissionOptions) {
    if (!(options.share > 0 && options.share <= 1)) throw new Error('share must be in (0, 1]');
    this.memory = options.memory ?? new CgroupMemory();
    this.pollMs = options.pollMs ?? 250;
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
  }

  /** Whether a page may open now. */
  admits(): boolean {
    if (this.options.share >= 1) return true;
    const reading = this.memory.read();
    this.limit = reading.limitBytes;
    if (reading.limitBytes === null || reading.workingSetBytes === null) return true;
    return reading.workingSetBytes < reading.limitBytes * this.options.share;
  }

  /** Resolves once a page may open; rejects on `signal`, or retryable after maxWaitMs. */
  async admit(signal?: AbortSignal): Promise<void> {
    if (this.admits()) return;
    this.waiting++;
    this.waited++;
    const deadline = Date.now() + this.maxWaitMs;
    try {
      while (!this.admits()) {
        if (signal?.aborted) throw fetchError('timeout', 'Waited too long for browser memory.');
        if (Date.now() >= deadline) {
          this.deferred++;
          const limitMb = Math.round((this.limit ?? 0) / 1_048_576);
          throw fetchError(
            'fetch_error',
            `The browser stayed above ${Math.round(this.options.share * 100)} % of the ${limitMb} MB memory limit for ${Math.round(this.maxWaitMs / 1000)} s; the page is tried again later.`,
            { retryable: true },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, this.pollMs));
      }
    } finally {
      this.waiting--;
    }
  }

  stats(): MemoryAdmissionStats {
    if (this.limit === undefined) this.limit = this.memory.read().limitBytes;
    return { limitBytes: this.limit, waiting: this.waiting, waited: this.waited, deferred: this.deferred };
  }
}

/** `dir` for the cgroup path and each of its parents up to the root, nearest first. */
function ancestors(root: string, path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  const dirs: string[] = [];
  for (let i = parts.length; i >= 0; i--) dirs.push(join(root, ...parts.slice(0, i)));
  return dirs;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function readNumber(file: string): number | null {
  const text = readText(file)?.trim();
  if (!text || text === 'max') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

function statField(file: string, field: string): number | null {
  const match = new RegExp(`^${field} (\\d+)$`, 'm').exec(readText(file) ?? '');
  return match ? Number(match[1]) : null;
}
