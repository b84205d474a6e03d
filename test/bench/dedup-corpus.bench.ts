/**
 * npm run bench:dedup [-- corpus wcxb index crawl] (docs/dedup.md "Measured"): the sections named, every one when none is;
 * a section not run keeps its previous numbers in bench-results/dedup.json.
 * - corpus: false merges among the SWDE book pages of one shop (templated records), copies found among generated
 *   variants of each page (test/bench/dedup/copies.ts: a changed date, an added session line, the navigation removed),
 *   and the fingerprint's CPU per page (test/bench/dedup/swde-merges.ts). Needs the corpus (corpus-dir.ts).
 * - wcxb: false merges among the 1,497 WCXB pages (1,295 sites) and copies of each found (test/bench/dedup/wcxb-merges.ts).
 *   Needs the corpus (corpus-dir.ts).
 * - index: the near-duplicate index's store operations and SQLite statements per page, on generated pages
 *   (test/bench/dedup/index-cost.ts; `BENCH_DEDUP_INDEX_PAGES`, default 2000). No crawl, no quiet machine needed.
 * - crawl: a crawl of a generated site with 30 % duplicates, with and without dedupe (test/bench/dedup/site-crawl.ts).
 *   Timed: run it on a quiet machine (`BENCH_DEDUP_PRODUCTS`, `BENCH_DEDUP_ARTICLES`, `BENCH_DEDUP_REPEATS` size it).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { corpusDir } from './corpus-dir';
import { killAll } from './crawl/procs';
import { indexCost } from './dedup/index-cost';
import { siteCrawl } from './dedup/site-crawl';
import { swdeMerges } from './dedup/swde-merges';
import { wcxbMerges } from './dedup/wcxb-merges';

const SECTIONS = ['corpus', 'wcxb', 'index', 'crawl'];

async function main(): Promise<void> {
  const out = resolve(__dirname, '../../bench-results/dedup.json');
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !SECTIONS.includes(name));
  if (unknown.length > 0) {
    console.error(`unknown section(s): ${unknown.join(', ')}; choose from ${SECTIONS.join(', ')}`);
    process.exit(2);
  }
  const run = (name: string) => asked.length === 0 || asked.includes(name);
  let result: Record<string, unknown> = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  if (run('corpus'))
    result = { ...result, when: new Date().toISOString(), command: 'npm run bench:dedup -- corpus', ...swdeMerges(corpusDir(['swde'])) };
  if (run('wcxb'))
    result.wcxb = { when: new Date().toISOString(), command: 'npm run bench:dedup -- wcxb', ...wcxbMerges(corpusDir(['wcxb-dev'])) };
  if (run('index')) result.index_cost = { when: new Date().toISOString(), command: 'npm run bench:dedup -- index', ...(await indexCost()) };
  if (run('crawl')) {
    const [l1, l5] = loadavg();
    const started = new Date().toISOString();
    const crawl = await siteCrawl((line) => console.error(line));
    result.site_crawl = {
      when: started,
      command: 'npm run bench:dedup -- crawl',
      load_average_at_start: { '1m': l1, '5m': l5 },
      load_average_at_end: { '1m': loadavg()[0], '5m': loadavg()[1] },
      ...crawl,
    };
  }
  console.log(JSON.stringify(result, null, 2));
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(killAll);
