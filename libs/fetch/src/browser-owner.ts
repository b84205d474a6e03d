import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every Chromium the pool launches carries `--gleaner-pool-owner=<pid>.<start time>` (its owner process,
 * start time in clock ticks since boot, so a reused pid is not mistaken for the owner). Chromium ignores the
 * switch; it only marks whose browser it is, so a process can find the browsers a dead predecessor left.
 */
export const OWNER_SWITCH = '--gleaner-pool-owner';

/** This process's owner mark (`<pid>.<start time>`), or `<pid>` where /proc is not there. */
export function ownerMark(pid = process.pid): string {
  const start = startTime(pid);
  return start === null ? String(pid) : `${pid}.${start}`;
}

export interface ReapedBrowser {
  pid: number;
  owner: string;
}

/**
 * Kills (SIGKILL, with its process group: Playwright starts each browser as a group leader) every marked
 * Chromium whose owner is gone: what a crawler killed with -9, OOM-killed or crashed left behind. A browser
 * whose owner is alive is never touched, whoever the owner is. Linux only (/proc); elsewhere it finds nothing.
 */
export function reapOrphanedBrowsers(options: { procRoot?: string; kill?: (pid: number) => void } = {}): ReapedBrowser[] {
  const proc = options.procRoot ?? '/proc';
  const kill =
    options.kill ??
    ((pid: number) => {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // gone already, or not a group leader
        }
      }
    });
  const reaped: ReapedBrowser[] = [];
  for (const { pid, owner } of markedBrowsers(proc)) {
    if (ownerAlive(owner, proc)) continue;
    kill(pid);
    reaped.push({ pid, owner });
  }
  return reaped;
}

/** The processes that carry the owner switch (browser main processes; their children do not carry it). */
export function markedBrowsers(proc = '/proc'): Array<{ pid: number; owner: string }> {
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return [];
  }
  const found: Array<{ pid: number; owner: string }> = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`${proc}/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const arg = cmdline.split('\0').find((a) => a.startsWith(`${OWNER_SWITCH}=`));
    if (arg) found.push({ pid: Number(entry), owner: arg.slice(OWNER_SWITCH.length + 1) });
  }
  return found;
}

function ownerAlive(owner: string, proc: string): boolean {
  const [pidText, start] = owner.split('.');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const actual = startTime(pid, proc);
  if (actual === null) return false;
  return start === undefined || String(actual) === start;
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command, which may contain spaces). */
function startTime(pid: number, proc = '/proc'): number | null {
  try {
    const stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}
