/**
 * Child processes of the crawl benchmark: every process it starts is registered here and killed on
 * the way out, whatever the way (normal end, exception, Ctrl-C, SIGTERM). Memory is read from
 * outside, from /proc/<pid>/status (VmRSS sampled, VmHWM the kernel's own peak), the same way for
 * Gleaner's processes and for the raw-Crawlee child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  /** Output lines kept (the last `keepLines`), and every line matching `watch`. */
  lines: string[];
  watched: string[];
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

const live = new Set<{ pid: number; kill: () => void }>();
let hooksInstalled = false;

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
  }
}

/** SIGKILLs every process still registered (synchronous: safe in an 'exit' handler). */
export function killAll(): void {
  for (const p of live) p.kill();
  live.clear();
}

/** Registers a process started elsewhere (redis, mongo-wire) so it is killed on the way out too. */
export function registerPid(pid: number): () => void {
  installHooks();
  const entry = {
    pid,
    kill: () => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    },
  };
  live.add(entry);
  return () => void live.delete(entry);
}

export function spawnProc(
  name: string,
  command: string,
  args: string[],
  options: { env: Record<string, string>; watch?: RegExp; keepLines?: number; stdin?: boolean; cwd?: string },
): Proc {
  installHooks();
  const child = spawn(command, args, {
    env: options.env,
    cwd: options.cwd,
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const keep = options.keepLines ?? 200;
  const lines: string[] = [];
  const watched: string[] = [];
  const onData = (() => {
    let rest = '';
    return (chunk: Buffer) => {
      const text = rest + chunk.toString('utf8');
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (lines.length > keep) lines.shift();
        if (options.watch?.test(line)) watched.push(line);
      }
    };
  })();
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const unregister = registerPid(child.pid!);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      unregister();
      resolve(code);
    }),
  );
  return {
    name,
    child,
    pid: child.pid!,
    lines,
    watched,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A field of /proc/<pid>/status in MB (VmRSS, VmHWM), or null when the process is gone. */
export function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system, seconds) of a process so far, from /proc/<pid>/stat. */
export function procCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

/** Samples VmRSS of a process every `everyMs` (and keeps the last VmHWM seen). */
export class RssSampler {
  readonly samples: Array<{ t: number; mb: number }> = [];
  private timer: NodeJS.Timeout;
  private hwm = 0;

  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): number | null {
    const mb = procStatusMb(this.pid, 'VmRSS');
    const hwm = procStatusMb(this.pid, 'VmHWM');
    if (hwm !== null) this.hwm = Math.max(this.hwm, hwm);
    if (mb !== null) this.samples.push({ t: Date.now(), mb });
    return mb;
  }

  /** The highest sampled VmRSS. */
  get peakSampledMb(): number {
    return this.samples.reduce((m, s) => Math.max(m, s.mb), 0);
  }

  /** The kernel's peak (VmHWM) as last read. */
  get hwmMb(): number {
    return this.hwm;
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }
}

export const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
