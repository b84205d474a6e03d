/**
 * Chromium process trees as /proc shows them: the browsers a pool marked with its owner (OWNER_SWITCH), each
 * with every process below it, and their resident memory. Used by the browser soak and its checks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { markedBrowsers } from '@app/fetch';

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Start time (clock ticks since boot): with the pid, it names one process for good. */
  start: number;
  rssBytes: number;
  /** Proportional set size: shared pages split between the processes sharing them (RSS counts them in each). */
  pssBytes: number;
}

export interface BrowserTree {
  root: number;
  owner: string;
  processes: ProcInfo[];
  rssBytes: number;
  pssBytes: number;
}

function pssOf(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

export function readProc(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return null; // a zombie holds no memory and is gone as far as work goes
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
    return { pid, ppid: Number(fields[1]), start: Number(fields[19]), rssBytes: rssKb * 1024, pssBytes: 0 };
  } catch {
    return null;
  }
}

export function allProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProc(Number(entry));
    if (info) out.push(info);
  }
  return out;
}

/** The marked browsers whose owner mark starts with `<ownerPid>.` (every one with `ownerPid` null), as trees. */
export function browserTrees(ownerPid: number | null): BrowserTree[] {
  const processes = allProcesses();
  const children = new Map<number, ProcInfo[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const trees: BrowserTree[] = [];
  for (const { pid, owner } of markedBrowsers()) {
    if (ownerPid !== null && owner.split('.')[0] !== String(ownerPid)) continue;
    const root = byPid.get(pid);
    if (!root) continue;
    const members: ProcInfo[] = [];
    const queue = [root];
    while (queue.length) {
      const p = queue.shift()!;
      members.push(p);
      queue.push(...(children.get(p.pid) ?? []));
    }
    for (const m of members) m.pssBytes = pssOf(m.pid);
    trees.push({
      root: pid,
      owner,
      processes: members,
      rssBytes: members.reduce((n, p) => n + p.rssBytes, 0),
      pssBytes: members.reduce((n, p) => n + p.pssBytes, 0),
    });
  }
  return trees;
}

/** Which of `seen` (pid and start time) still run. */
export function stillRunning(seen: Iterable<Pick<ProcInfo, 'pid' | 'start'>>): ProcInfo[] {
  const alive: ProcInfo[] = [];
  for (const p of seen) {
    const now = readProc(p.pid);
    if (now && now.start === p.start) alive.push(now);
  }
  return alive;
}
