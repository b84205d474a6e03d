/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from `BENCH_CPU_PROF=<dir> npm run bench:api`):
 * self time by package or part of the app, the top functions by self time, and the inclusive time of
 * the frames that name a layer of the request path (guards, interceptors, serialisation, the store).
 *
 *   node --import tsx test/bench/api/cpu-top.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

/** Where a frame's code lives: a package under node_modules, a lib or app of the build, node itself. */
export function partOf(url: string): string {
  if (!url) return '(native/vm)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /dist\/((?:libs|apps)\/[^/]+)/.exec(url);
  if (own) return own[1];
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/')[0];
  return url.split('/').slice(-2).join('/');
}

function main(): void {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpu-top.ts <file.cpuprofile> [top]');
  const top = Number(topArg ?? 25);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const msPerSample = totalMs / Math.max(1, profile.samples.length);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);

  const self = new Map<string, number>();
  const parts = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, count] of hits) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') {
      self.set(functionName, (self.get(functionName) ?? 0) + count);
      if (functionName === '(garbage collector)') busy += count;
      continue;
    }
    busy += count;
    const name = `${functionName || '(anonymous)'} ${partOf(url)}:${lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + count);
    parts.set(partOf(url), (parts.get(partOf(url)) ?? 0) + count);
    // Inclusive time per function name (each counted once per sample, however deep the recursion).
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const key = `${frame.functionName || '(anonymous)'} ${partOf(frame.url)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + count);
    }
  }
  const ms = (count: number) => Math.round(count * msPerSample);
  const pct = (count: number) => `${((count / Math.max(1, busy)) * 100).toFixed(1)} %`;
  const table = (title: string, entries: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [name, count] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      console.log(`  ${pct(count).padStart(7)}  ${String(ms(count)).padStart(6)} ms  ${name}`);
    }
  };
  console.log(`${file}: ${Math.round(totalMs)} ms profiled, ${ms(busy)} ms busy (percentages of busy time)`);
  table('self time by part', parts, top);
  table('self time by function', self, top);
  table('inclusive time by function', inclusive, top * 2);
}

main();
