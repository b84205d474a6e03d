/**
 * bench:dedup on the SWDE book pages (the corpus directory, corpus-dir.ts): the pages of one shop are one template with
 * different records, so every pair of them the index would merge is a false merge (with the record-value guard: what
 * the index decides; without it: the fingerprint alone). Then each page's generated copies must be found (copies.ts),
 * and the fingerprint's and the guard's CPU per page are measured, and the memory a page takes where it is kept: its
 * index record's fingerprint and values, and a process's known originals (libs/dedup/src/known-originals.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { convertHtml } from '@app/content';
import { bandsOf, fingerprintOf, NEAR_SIMILARITY, similarity } from '../../../libs/dedup/src/fingerprint';
import { KnownOriginals, type KnownOriginal } from '../../../libs/dedup/src/known-originals';
import { differentRecords, recordValuesOf } from '../../../libs/dedup/src/record-values';
import { textHash } from '../../../libs/dedup/src/text-hash';
import { CopyTally, variantsOf } from './copies';

export function swdeMerges(corpus: string): Record<string, unknown> {
  const root = join(corpus, 'swde/pages');
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
  let fingerprintMs = 0;
  let guardMs = 0;
  const copies = new CopyTally();
  const originals: KnownOriginal[] = [];
  for (const site of readdirSync(root).sort()) {
    const fps: string[] = [];
    const valuesOf: string[] = [];
    for (const file of readdirSync(join(root, site)).sort()) {
      const html = gunzipSync(readFileSync(join(root, site, file))).toString('utf8');
      const url = `https://${site}.example/${file}`;
      const text = md(html, url);
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
      originals.push({ key: `${site}/${file}`, url, fp, hash: textHash(text), values });
      // The copies live under another address (a print view's, a variant's): their links resolve from there.
      for (const variant of variantsOf(html))
        copies.add({ url, fp, values, text }, variant, md(variant.html, `https://${site}.example/v/${file}`));
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
    templated: {
      pages,
      pairs,
      band_candidates: candidates,
      false_merges: falseMerges,
      false_merges_without_guard: falseMergesWithoutGuard,
      max_similarity_of_candidates: maxTemplated,
    },
    copies: copies.report(),
    fingerprint_cpu_ms_per_page: fingerprintMs / pages,
    memory_per_page: memoryPerPage(originals),
    guard_cpu_ms_per_page: guardMs / pages,
  };
}

/** The heap a collection holds, measured around `fill` with full collections before and after (V8's gc, exposed here). */
function heapHeldBy<T>(fill: () => T): { held: T; bytes: number } {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  const held = fill();
  gc();
  return { held, bytes: process.memoryUsage().heapUsed - before };
}

/**
 * What a page costs to keep: the characters of its index record's fingerprint and values (stored once per page), and
 * the heap of a process's known originals holding every page (the elements, the record, the URL; ~KNOWN_ORIGINALS_MAX
 * of them at most per process).
 */
function memoryPerPage(originals: KnownOriginal[]): Record<string, number> {
  const n = originals.length;
  const chars = (pick: (o: KnownOriginal) => string | undefined) =>
    Math.round(originals.reduce((sum, o) => sum + (pick(o)?.length ?? 0), 0) / n);
  // Read back as a process reads records from the store (new strings), so the heap measured is all the known originals hold.
  const records = JSON.stringify(originals);
  const { held, bytes } = heapHeldBy(() => {
    const known = new KnownOriginals(n + 1);
    for (const o of JSON.parse(records) as KnownOriginal[]) known.add('job', o, [...bandsOf(o.fp ?? ''), `h:${o.hash}`]);
    return known;
  });
  if (!held.has('job', originals[0].key)) throw new Error('the known originals lost a page');
  return {
    fingerprint_chars: chars((o) => o.fp),
    values_chars: chars((o) => o.values),
    known_original_heap_bytes: Math.round(bytes / n),
  };
}
