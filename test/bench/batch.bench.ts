/**
 * npm run bench:batch [-- list map] — batch extraction and map numbers, written to
 * bench-results/batch.json (sections not run keep their previous numbers). No timed assertions: the
 * target (a batch at ≥ 0.9× raw Crawlee's pages/s at equal concurrency) is reported as met or not.
 *
 * 1. list: a 2,000-URL list over 50 local hosts, POST /batch/extract vs a plain CheerioCrawler over the
 *    same list, alternating runs, medians and pairs (test/bench/batch/list.ts).
 * 2. map: POST /map of a site with a 50,000-URL sitemap index: time and RSS (test/bench/batch/map.ts).
 *
 * Knobs: BENCH_BATCH_URLS, BENCH_BATCH_HOSTS, BENCH_BATCH_CONCURRENCY, BENCH_BATCH_REPEATS,
 * BENCH_BATCH_CPU_PROF (a directory: the app runs under --cpu-prof), BENCH_MAP_SITEMAPS,
 * BENCH_MAP_URLS_PER_SITEMAP, BENCH_MAP_REPEATS. Helpers (site server, processes,
 * RSS from /proc) are the crawl benchmark's (test/bench/crawl/).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { startModelServer } from '../fixtures/model-server';
import { listVsCrawlee } from './batch/list';
import { mapOfSitemapIndex } from './batch/map';
import type { BenchContext } from './crawl/context';
import { assertBuilt, ROOT } from './crawl/gleaner';
import { killAll, round } from './crawl/procs';
import { startBenchSite } from './crawl/site';

const SECTIONS = { list: listVsCrawlee, map: mapOfSitemapIndex } as const;
type SectionName = keyof typeof SECTIONS;
const OUT = join(ROOT, 'bench-results', 'batch.json');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => !(a in SECTIONS));
  if (unknown.length > 0) {
    console.error(`unknown section(s): ${unknown.join(', ')}; choose from ${Object.keys(SECTIONS).join(', ')}`);
    process.exit(2);
  }
  const chosen = (args.length > 0 ? args : Object.keys(SECTIONS)) as SectionName[];
  assertBuilt();
  const previous = existsSync(OUT) ? (JSON.parse(readFileSync(OUT, 'utf8')) as Record<string, unknown>) : {};
  const hosts = Number(process.env.BENCH_BATCH_HOSTS ?? 50);
  const site = await startBenchSite({ extraAddresses: Array.from({ length: hosts - 1 }, (_, i) => `127.0.0.${i + 2}`) });
  const models = await startModelServer();
  const notes: string[] = [];
  const ctx: BenchContext = { site, models, notes, log: (m) => console.log(`[bench:batch] ${m}`) };
  const [l1] = loadavg();
  const result: Record<string, unknown> = {
    benchmark: 'batch extraction vs raw Crawlee, and map of a 50,000-URL sitemap index (npm run bench:batch)',
    date: new Date().toISOString(),
    machine: {
      cpu: cpus()[0]?.model,
      cores: cpus().length,
      memory_gb: round(totalmem() / 1024 ** 3),
      load_1m_at_start: round(l1, 2),
      node: process.version,
    },
    list: previous.list ?? null,
    map: previous.map ?? null,
    notes,
  };
  try {
    for (const name of chosen) result[name] = await SECTIONS[name](ctx);
  } finally {
    await site.close();
    await models.close();
    killAll();
  }
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`[bench:batch] written to ${OUT}`);
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});
