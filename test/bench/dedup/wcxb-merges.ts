/**
 * bench:dedup on the WCXB development split (test/bench/wcxb-corpus.ts, from the corpus directory like the SWDE pages):
 * 1,497 pages of seven types from 1,295 sites, none a copy of another. Every pair of pages the index would compare (they
 * share an LSH band or their text) is scored: a pair at NEAR_SIMILARITY or more is a false merge, reported with both
 * addresses. The pages of one site (templated: shop products, forum threads, docs pages) are counted apart. Then each page's
 * generated copies (copies.ts: a changed date, an added session line, the navigation removed) must be found. Both with the
 * record-value guard (libs/dedup/src/record-values.ts: what the index decides) and without it (the fingerprint alone).
 */
import { convertHtml } from '@app/content';
import { bandsOf, fingerprintOf, NEAR_SIMILARITY, similarity } from '../../../libs/dedup/src/fingerprint';
import { differentRecords, recordValuesOf, VALUES_KEPT } from '../../../libs/dedup/src/record-values';
import { textHash } from '../../../libs/dedup/src/text-hash';
import { loadWcxb } from '../wcxb-corpus';
import { CopyTally, variantsOf } from './copies';

/**
 * Pairs of the split that are one document under two addresses (checked by hand: the same text, or the same text with
 * its own links), so merging them is right: they are reported apart from the false merges.
 */
const SAME_DOCUMENT: Array<[string, string, string]> = [
  [
    'https://publicdomainreview.org/collection/moseley-coffee',
    'https://publicdomainreview.org/collection/moseley-coffee/',
    'trailing slash',
  ],
  ['https://www.postgresql.org/docs/18/sql-select.html', 'https://www.postgresql.org/docs/current/sql-select.html', '/current/ is 18'],
];

/** Thresholds at which the share of generated copies found is reported (the index uses NEAR_SIMILARITY). */
const THRESHOLDS = [0.85, 0.88, 0.9, 0.92, 0.95];

export function wcxbMerges(corpus: string): Record<string, unknown> {
  const cases = loadWcxb(corpus);
  const md = (html: string, url: string) => convertHtml({ html, url, mode: 'full' }).markdown;
  const pages: Array<{ id: string; url: string; host: string; fp: string; hash: string; values: string }> = [];
  let withoutFingerprint = 0;
  let valuesCut = 0;
  let guardMs = 0;
  const copies = new CopyTally();
  for (const c of cases) {
    const text = md(c.html, c.url);
    const fp = fingerprintOf(text);
    if (!fp) {
      withoutFingerprint++;
      continue;
    }
    const started = performance.now();
    const values = recordValuesOf(text);
    guardMs += performance.now() - started;
    if (values.includes('|+')) valuesCut++;
    pages.push({ id: c.id, url: c.url, host: hostOf(c.url), fp, hash: textHash(text), values });
    for (const variant of variantsOf(c.html)) copies.add({ url: c.url, fp, values, text }, variant, md(variant.html, c.url));
  }
  // The pairs the index compares: pages sharing a band or a text hash (an index by element, not all 1.1 M pairs).
  const byElement = new Map<string, number[]>();
  pages.forEach((p, i) => {
    for (const element of [...bandsOf(p.fp), `h:${p.hash}`]) {
      const list = byElement.get(element);
      if (list) list.push(i);
      else byElement.set(element, [i]);
    }
  });
  const compared = new Set<string>();
  for (const list of byElement.values()) {
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) compared.add(`${list[i]}:${list[j]}`);
  }
  const merges: Array<{
    a: string;
    b: string;
    similarity: number;
    same_text: boolean;
    same_document: string | null;
    /** The record-value guard keeps them apart (the index does not merge them). */
    kept_apart_by_guard: boolean;
  }> = [];
  let maxSimilarity = 0;
  for (const pair of compared) {
    const [i, j] = pair.split(':').map(Number);
    const alike = similarity(pages[i].fp, pages[j].fp);
    maxSimilarity = Math.max(maxSimilarity, alike);
    const sameText = pages[i].hash === pages[j].hash;
    if (alike >= NEAR_SIMILARITY || sameText) {
      const known = SAME_DOCUMENT.find(
        ([a, b]) => (a === pages[i].url && b === pages[j].url) || (a === pages[j].url && b === pages[i].url),
      );
      merges.push({
        a: pages[i].url,
        b: pages[j].url,
        similarity: alike,
        same_text: sameText,
        same_document: known?.[2] ?? null,
        kept_apart_by_guard: !sameText && differentRecords(pages[i].values, pages[j].values),
      });
    }
  }
  const hosts = new Map<string, number>();
  for (const p of pages) hosts.set(p.host, (hosts.get(p.host) ?? 0) + 1);
  const sameSitePairs = [...hosts.values()].reduce((sum, n) => sum + (n * (n - 1)) / 2, 0);
  const n = pages.length;
  return {
    pages: n,
    pages_without_fingerprint: withoutFingerprint,
    sites: hosts.size,
    pairs: (n * (n - 1)) / 2,
    same_site_pairs: sameSitePairs,
    band_candidates: compared.size,
    same_site_band_candidates: [...compared].filter((pair) => {
      const [i, j] = pair.split(':').map(Number);
      return pages[i].host === pages[j].host;
    }).length,
    max_similarity_of_candidates: maxSimilarity,
    false_merges: merges.filter((m) => !m.same_document && !m.kept_apart_by_guard).length,
    false_merges_without_guard: merges.filter((m) => !m.same_document).length,
    merged_pairs: merges,
    copies: copies.report(),
    guard: { cpu_ms_per_page: guardMs / n, pages_with_more_values_than_kept: valuesCut, values_kept: VALUES_KEPT },
    // What another threshold would do: the copies found, and the merges, at each.
    at_threshold: THRESHOLDS.map((t) => ({
      threshold: t,
      copies_found_rate: copies.similarities.filter((x) => x >= t).length / copies.similarities.length,
      false_merges: merges.filter((m) => !m.same_document && !m.kept_apart_by_guard && m.similarity >= t).length,
    })),
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}
