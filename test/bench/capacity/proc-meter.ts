/**
 * CPU and disk I/O of named processes, read from outside (/proc/<pid>/stat and /proc/<pid>/io), as
 * snapshots to diff: what a phase of a run cost each process, whatever the process does.
 */
import { readFileSync } from 'node:fs';

export interface ProcSample {
  cpu_ms: number;
  /**
   * CPU of the main thread alone (/proc/<pid>/task/<pid>/stat): a Node process's event loop is one
   * thread, so this is the share that cannot spread over more cores (worker threads, GC helpers and libuv's
   * pool can).
   */
  main_thread_cpu_ms: number;
  /** Bytes the process caused to be written to storage (write_bytes of /proc/<pid>/io; pipes and sockets excluded). */
  disk_write_bytes: number;
}

function ticksMs(statPath: string): number {
  try {
    const stat = readFileSync(statPath, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, clock ticks of 10 ms
  } catch {
    return 0;
  }
}

/** write_bytes of /proc/<pid>/io, or 0 when the kernel does not say (no permission, process gone). */
export function diskWriteBytes(pid: number): number {
  try {
    const m = /^write_bytes:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export class ProcMeter {
  constructor(private readonly pids: Record<string, number>) {}

  sample(): Record<string, ProcSample> {
    return Object.fromEntries(
      Object.entries(this.pids).map(([name, pid]) => [
        name,
        {
          cpu_ms: ticksMs(`/proc/${pid}/stat`),
          main_thread_cpu_ms: ticksMs(`/proc/${pid}/task/${pid}/stat`),
          disk_write_bytes: diskWriteBytes(pid),
        },
      ]),
    );
  }

  static diff(after: Record<string, ProcSample>, before: Record<string, ProcSample>): Record<string, ProcSample> {
    return Object.fromEntries(
      Object.entries(after).map(([name, a]) => [
        name,
        {
          cpu_ms: a.cpu_ms - (before[name]?.cpu_ms ?? 0),
          main_thread_cpu_ms: a.main_thread_cpu_ms - (before[name]?.main_thread_cpu_ms ?? 0),
          disk_write_bytes: a.disk_write_bytes - (before[name]?.disk_write_bytes ?? 0),
        },
      ]),
    );
  }
}
