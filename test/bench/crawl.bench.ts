/**
 * npm run bench:crawl [-- overhead scale-out size politeness] — the crawl engine's numbers, written to
 * bench-results/crawl.json (sections not run keep their previous numbers). No timed assertions: the
 * targets are reported as met or not, with the evidence.
 *
 * 1. overhead: Gleaner (embedded) vs a plain Crawlee CheerioCrawler on the same local 2,000-page site,
 *    same concurrency, alternating runs; pages/s and peak RSS measured from outside; a CPU profile and
 *    SQLite statement counts of Gleaner as evidence.
 * 2. scale-out: cluster mode (API + 1 or 2 crawler processes, Redis, MongoDB-wire), pages answering
 *    in ~100 ms on 200 hosts: 8 crawls of 25 hosts, and one crawl of 200 hosts.
 * 3. size: a 100,000-page crawl (embedded): RSS over the crawl and crawl-map read latency.
 * 4. politeness: 10 hosts, one answering 429 for 5 s: the others' pages/s during the pause vs a run
 *    without any 429.
 *
 * Knobs (environment): BENCH_CRAWL_PAGES, BENCH_CRAWL_CONCURRENCY, BENCH_CRAWL_REPEATS,
 * BENCH_CRAWL_EVIDENCE=0, BENCH_CRAWL_SCALE_PAGES_PER_HOST, BENCH_CRAWL_SCALE_WORKERS,
 * BENCH_CRAWL_SIZE_PAGES, BENCH_CRAWL_POLITENESS_PAGES_PER_HOST. Every process started is killed on
 * the way out, failure or Ctrl-C included (test/bench/crawl/procs.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { startModelServer } from '../fixtures/model-server';
import type { BenchContext } from './crawl/context';
import { assertBuilt, ROOT } from './crawl/gleaner';
import { overhead } from './crawl/overhead';
import { politeness } from './crawl/politeness';
import { killAll, round } from './crawl/procs';
import { scaleOut } from './crawl/scale-out';
import { size } from './crawl/size';
import { startBenchSite } from './crawl/site';

const SECTIONS = {
  overhead: { key: 'overhead', run: overhead },
  'scale-out': { key: 'scale_out', run: scaleOut },
  size: { key: 'size', run: size },
  politeness: { key: 'politeness', run: politeness },
} as const;
type SectionName = keyof typeof SECTIONS;

const OUT = join(ROOT, 'bench-results', 'crawl.json');

function machine() {
  const [l1, l5, l15] = loadavg();
  return {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memory_gb: round(totalmem() / 1024 ** 3),
    free_memory_gb_at_start: round(freemem() / 1024 ** 3),
    load_average_at_start: { '1m': round(l1, 2), '5m': round(l5, 2), '15m': round(l15, 2) },
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).map((a) => (a === 'scale' || a === 'scale_out' ? 'scale-out' : a));
  const unknown = args.filter((a) => !(a in SECTIONS));
  if (unknown.length > 0) {
    console.error(`unknown section(s): ${unknown.join(', ')}; choose from ${Object.keys(SECTIONS).join(', ')}`);
    process.exit(2);
  }
  const chosen = (args.length > 0 ? args : Object.keys(SECTIONS)) as SectionName[];
  assertBuilt();

  const previous = existsSync(OUT) ? (JSON.parse(readFileSync(OUT, 'utf8')) as Record<string, unknown>) : {};
  const result: Record<string, unknown> = {
    benchmark: 'crawl: overhead vs raw Crawlee, scale-out, size, politeness cost (npm run bench:crawl)',
    date: new Date().toISOString(),
    machine: machine(),
    overhead: previous.overhead ?? null,
    scale_out: previous.scale_out ?? null,
    size: previous.size ?? null,
    politeness: previous.politeness ?? null,
    notes: [] as string[],
  };
  const started = Date.now();
  const site = await startBenchSite();
  const models = await startModelServer();
  const notes: string[] = [];
  const ctx: BenchContext = {
    site,
    models,
    notes,
    log: (message) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${message}`),
  };
  let failed = false;
  try {
    for (const name of chosen) {
      ctx.log(`== ${name}`);
      const sectionStarted = Date.now();
      try {
        const section = await SECTIONS[name].run(ctx);
        result[SECTIONS[name].key] = {
          date: new Date().toISOString(),
          duration_s: Math.round((Date.now() - sectionStarted) / 1000),
          ...section,
        };
      } catch (error) {
        failed = true;
        console.error(error);
        result[SECTIONS[name].key] = { date: new Date().toISOString(), error: error instanceof Error ? error.message : String(error) };
      }
      // Written after each section: a long run that fails later keeps what it measured.
      const previousNotes = Array.isArray(previous.notes) ? (previous.notes as string[]) : [];
      result.notes = [...new Set([...notes, ...previousNotes.filter((n) => !chosen.some((c) => n.startsWith(`${c}:`)))])];
      mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
      writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    }
  } finally {
    await site.close();
    await models.close();
    killAll();
  }
  ctx.log(`wrote ${OUT}`);
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});
