/**
 * bench:dedup (docs/dedup.md "Measured"): false merges among the SWDE book pages of one shop (templated records), copies
 * found among generated variants of each page (a changed date, an added session line, the navigation removed), and the
 * fingerprint's CPU per page. Needs the corpus (corpus-dir.ts). Writes bench-results/dedup.json.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { convertHtml } from '@app/content';
import { bandsOf, fingerprintOf, NEAR_SIMILARITY, similarity } from '../../libs/dedup/src/fingerprint';
import { corpusDir } from './corpus-dir';

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
let maxTemplated = 0;
let variants = 0;
let found = 0;
let fingerprintMs = 0;
const missedBy: Record<string, number> = { date: 0, session_line: 0, no_navigation: 0 };
for (const site of readdirSync(root).sort()) {
  const fps: string[] = [];
  for (const file of readdirSync(join(root, site)).sort()) {
    const html = gunzipSync(readFileSync(join(root, site, file))).toString('utf8');
    const text = md(html, `https://${site}.example/${file}`);
    const started = performance.now();
    const fp = fingerprintOf(text);
    fingerprintMs += performance.now() - started;
    if (!fp) continue;
    pages++;
    fps.push(fp);
    const made = {
      date: html.replace(/\d{4}/, (m) => String((Number(m) + 1) % 10000)),
      session_line: html.replace(/<body([^>]*)>/i, '<body$1><p>Last updated 2026-12-02 07:00 UTC. Session 8f3a9c.</p>'),
      no_navigation: html.replace(/<(nav|header)[\s\S]*?<\/\1>/gi, ''),
    };
    for (const [kind, variant] of Object.entries(made)) {
      variants++;
      const copy = fingerprintOf(md(variant, `https://${site}.example/v/${file}`));
      if (copy && shareBand(fp, copy) && similarity(fp, copy) >= NEAR_SIMILARITY) found++;
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
      if (alike >= NEAR_SIMILARITY) falseMerges++;
    }
}
const result = {
  when: new Date().toISOString(),
  command: 'npm run bench:dedup',
  templated: { pages, pairs, band_candidates: candidates, false_merges: falseMerges, max_similarity_of_candidates: maxTemplated },
  copies: { variants, found, detection_rate: found / variants, missed_by_kind: missedBy },
  fingerprint_cpu_ms_per_page: fingerprintMs / pages,
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(resolve(__dirname, '../../bench-results/dedup.json'), `${JSON.stringify(result, null, 2)}\n`);
