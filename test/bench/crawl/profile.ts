/**
 * Summaries of a V8 .cpuprofile (node --cpu-prof) small enough for bench-results/crawl.json: where the
 * main thread's time went, attributed to the Gleaner lib nearest the sampled frame (so SQLite time
 * counts under `storage`, the OpenAI SDK under `llm`, got-scraping under `fetch`), else to the package
 * or Node internals it was in; plus the top functions by self time.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the profiled process's monotonic clock, in µs (the profile's own clock: process.hrtime on Linux). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

export interface ProfileSummary {
  total_ms: number;
  idle_pct: number;
  /** Share of sampled time by the Gleaner lib on the stack nearest the sample (else the package / Node part). */
  by_owner_pct: Record<string, number>;
  /** Top functions by self time. */
  top_self: Array<{ fn: string; pct: number; ms: number }>;
}

function pkg(url: string): string {
  if (!url) return '(native)';
  const lib = /\/dist\/(libs|apps)\/([^/]+)\//.exec(url);
  if (lib) return `${lib[1] === 'libs' ? 'lib' : 'app'}:${lib[2]}`;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `pkg:${nm[1]}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(14).split('/')[0] : url.slice(5)}`;
  return url;
}

export function summarizeProfile(file: string, top = 25, window?: ProfileWindow): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  let total = 0;
  let idle = 0;
  const owners = new Map<string, number>();
  const self = new Map<string, number>();
  for (const [id, us] of time) {
    total += us;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    // Piscina's worker threads block in Atomics.wait between tasks: waiting, not working.
    if (name === '(idle)' || name === 'atomicsWaitLoop') {
      idle += us;
      continue;
    }
    let owner: string | null = null;
    if (name === '(garbage collector)' || name === '(program)') owner = name;
    for (let cur: number | undefined = id; owner === null && cur !== undefined; cur = parent.get(cur)) {
      const p = pkg(byId.get(cur)!.callFrame.url);
      if (p.startsWith('lib:') || p.startsWith('app:')) owner = p;
    }
    owner ??= pkg(node.callFrame.url);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
    const where = node.callFrame.url.split('/').slice(-2).join('/');
    const key = `${name || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
  }
  const pct = (us: number) => Math.round((us / total) * 1000) / 10;
  return {
    total_ms: Math.round(total / 1000),
    idle_pct: pct(idle),
    by_owner_pct: Object.fromEntries(
      [...owners]
        .sort((a, b) => b[1] - a[1])
        .filter(([, us]) => us / total >= 0.005)
        .map(([k, us]) => [k, pct(us)]),
    ),
    top_self: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => ({ fn, pct: pct(us), ms: Math.round(us / 1000) })),
  };
}
