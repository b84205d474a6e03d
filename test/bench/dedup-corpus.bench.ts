/**
 * npm run bench:dedup [-- corpus crawl] (docs/dedup.md "Measured"); both sections when none is named, a section not run
 * keeps its previous numbers in bench-results/dedup.json.
 * - corpus: false merges among the SWDE book pages of one shop (templated records), copies found among generated
 *   variants of each page (a changed date, an added session line, the navigation removed), and the fingerprint's CPU per
 *   page. Needs the corpus (corpus-dir.ts).
 * - wcxb: false merges among the 1,497 WCXB pages (1,295 sites) and copies of each found (test/bench/dedup/wcxb-merges.ts).
 *   Needs the corpus (corpus-dir.ts).
 * - index: the near-duplicate index's store operations and SQLite statements per page, on generated pages
 *   (test/bench/dedup/index-cost.ts; `BENCH_DEDUP_INDEX_PAGES`, default 2000). No crawl, no quiet machine needed.
 * - crawl: a crawl of a generated site with 30 % duplicates, with and without dedupe (test/bench/dedup/site-crawl.ts).
 *   Timed: run it on a quiet machine (`BENCH_DEDUP_PRODUCTS`, `BENCH_DEDUP_ARTICLES`, `BENCH_DEDUP_REPEATS` size it).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { convertHtml } from '@app/content';
import { bandsOf, fingerprintOf, NEAR_SIMILARITY, similarity } from '../../libs/dedup/src/fingerprint';
import { differentRecords, recordValuesOf } from '../../libs/dedup/src/record-values';
import { corpusDir } from './corpus-dir';
import { killAll } from './crawl/procs';
import { indexCost } from './dedup/index-cost';
import { siteCrawl } from './dedup/site-crawl';
import { wcxbMerges } from './dedup/wcxb-merges';

function corpus(): Record<string, unknown> {
  const root = join(corpusDir(['swde']), 'swde/pages');
  const md = (html: string, url: string) => convertHtml({ html, url, mode: 'full' }).markdown;
  const shareBand = (a: string, b: string) => {
    const bands = new Set(bandsOf(a));
    return bandsOf(b).some((x) => bands.has(x));
  };
  let pages = 0;
  let pairs = 0;
  let candidates = 0;
  let falseMerges = 0;
  let falseMergesWithoutGuard = 0;
  let maxTemplated = 0;
  let variants = 0;
  let found = 0;
  let foundWithoutGuard = 0;
  let fingerprintMs = 0;
  let guardMs = 0;
  const missedBy: Record<string, number> = { date: 0, session_line: 0, no_navigation: 0 };
  /** `date` variants whose changed number is shown and is not a year (a value changed, not a date): not copies. */
  const notAYear = { apart_by_fingerprint: 0, apart_by_guard: 0, merged: 0 };
  const guardMissedBy: Record<string, number> = { date: 0, session_line: 0, no_navigation: 0 };
  for (const site of readdirSync(root).sort()) {
    const fps: string[] = [];
    const valuesOf: string[] = [];
    for (const file of readdirSync(join(root, site)).sort()) {
      const html = gunzipSync(readFileSync(join(root, site, file))).toString('utf8');
      const text = md(html, `https://${site}.example/${file}`);
      const started = performance.now();
      const fp = fingerprintOf(text);
      fingerprintMs += performance.now() - started;
      if (!fp) continue;
      const guardStarted = performance.now();
      const values = recordValuesOf(text);
      guardMs += performance.now() - guardStarted;
      pages++;
      fps.push(fp);
      valuesOf.push(values);
      // The first run of four digits, plus one: a changed date when it is a year (19xx, 20xx); otherwise the page's
      // values changed (a PO box, an offer code, a SKU): not a copy, counted apart (`date_not_a_year`).
      let changed = '';
      const made = {
        date: html.replace(/\d{4}/, (m) => {
          changed = m;
          return String((Number(m) + 1) % 10000);
        }),
        session_line: html.replace(/<body([^>]*)>/i, '<body$1><p>Last updated 2026-12-02 07:00 UTC. Session 8f3a9c.</p>'),
        no_navigation: html.replace(/<(nav|header)[\s\S]*?<\/\1>/gi, ''),
      };
      for (const [kind, variant] of Object.entries(made)) {
        const copyText = md(variant, `https://${site}.example/v/${file}`);
        const shown = kind === 'date' && md(variant, `https://${site}.example/${file}`) !== text;
        if (shown && !/^(19|20)\d\d$/.test(changed)) {
          // Shown and not a year: the record's values changed. Would the index merge it (fingerprint, then guard)?
          const other = fingerprintOf(copyText);
          const near = other !== null && similarity(fp, other) >= NEAR_SIMILARITY;
          if (!near) notAYear.apart_by_fingerprint++;
          else if (differentRecords(values, recordValuesOf(copyText))) notAYear.apart_by_guard++;
          else notAYear.merged++;
          continue;
        }
        variants++;
        const copy = fingerprintOf(copyText);
        const near = copy !== null && shareBand(fp, copy) && similarity(fp, copy) >= NEAR_SIMILARITY;
        // The index's decision: near, and not another record by the record-value guard.
        const guarded = near && differentRecords(values, recordValuesOf(copyText));
        if (near) foundWithoutGuard++;
        if (guarded) guardMissedBy[kind]++;
        if (near && !guarded) found++;
        else missedBy[kind]++;
      }
    }
    for (let i = 0; i < fps.length; i++)
      for (let j = i + 1; j < fps.length; j++) {
        pairs++;
        if (!shareBand(fps[i], fps[j])) continue;
        candidates++;
        const alike = similarity(fps[i], fps[j]);
        maxTemplated = Math.max(maxTemplated, alike);
        if (alike >= NEAR_SIMILARITY && !differentRecords(valuesOf[i], valuesOf[j])) falseMerges++;
        if (alike >= NEAR_SIMILARITY) falseMergesWithoutGuard++;
      }
  }
  return {
    when: new Date().toISOString(),
    command: 'npm run bench:dedup',
    templated: {
      pages,
      pairs,
      band_candidates: candidates,
      false_merges: falseMerges,
      false_merges_without_guard: falseMergesWithoutGuard,
      max_similarity_of_candidates: maxTemplated,
    },
    copies: {
      variants,
      found,
      detection_rate: found / variants,
      missed_by_kind: missedBy,
      date_not_a_year: notAYear,
      missed_by_guard_by_kind: guardMissedBy,
      without_guard: { found: foundWithoutGuard, detection_rate: foundWithoutGuard / variants },
    },
    fingerprint_cpu_ms_per_page: fingerprintMs / pages,
    guard_cpu_ms_per_page: guardMs / pages,
  };
}

async function main(): Promise<void> {
  const out = resolve(__dirname, '../../bench-results/dedup.json');
  const asked = process.argv.slice(2);
  const run = (name: string) => asked.length === 0 || asked.includes(name);
  let result: Record<string, unknown> = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  if (run('corpus')) result = { ...result, ...corpus() };
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
