/**
 * The WCXB development split ($GLEANER_CORPUS_DIR/wcxb-dev, see corpus-dir.ts) and its own scoring, as the
 * benchmark defines it: `\w+` tokens of the lower-cased text, precision and recall on the bags of tokens of an
 * extraction against `main_content` (an empty truth scores 1 only for an empty extraction), and the share of
 * `with` snippets found and of `without` snippets leaked (lower-cased substring tests; see snippetRate for the
 * typography both sides are read without).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const WCXB_TYPES = ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'] as const;
export type WcxbType = (typeof WCXB_TYPES)[number];

export interface WcxbCase {
  id: string;
  url: string;
  type: WcxbType;
  html: string;
  title: string;
  truth: string;
  with: string[];
  without: string[];
}

interface GroundTruthFile {
  url: string;
  _internal?: { page_type?: { primary?: string } | string };
  ground_truth: { title?: string; main_content?: string; with?: string[]; without?: string[] };
}

export function loadWcxb(dir: string): WcxbCase[] {
  const root = join(dir, 'wcxb-dev');
  const ids = readdirSync(join(root, 'ground-truth'))
    .filter((f) => f.endsWith('.json.gz'))
    .map((f) => f.replace(/\.json\.gz$/, ''))
    .sort();
  return ids.map((id) => {
    const file = JSON.parse(gunzipSync(readFileSync(join(root, 'ground-truth', `${id}.json.gz`))).toString('utf8')) as GroundTruthFile;
    const gt = file.ground_truth;
    return {
      id,
      url: file.url,
      type: pageType(file),
      html: gunzipSync(readFileSync(join(root, 'html', `${id}.html.gz`))).toString('utf8'),
      title: gt.title ?? '',
      truth: gt.main_content ?? '',
      with: gt.with ?? [],
      without: gt.without ?? [],
    };
  });
}

function pageType(file: GroundTruthFile): WcxbType {
  const pt = file._internal?.page_type;
  const primary = (typeof pt === 'string' ? pt : pt?.primary) ?? 'article';
  const type = primary === 'category' ? 'collection' : primary;
  return (WCXB_TYPES as readonly string[]).includes(type) ? (type as WcxbType) : 'article';
}

/** `\w+` runs of the lower-cased text, as Python's `re` reads them (letters, digits, underscore). */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

export interface WordScore {
  precision: number;
  recall: number;
  f1: number;
}

export function wordScore(prediction: string, truth: string): WordScore {
  const p = wordTokens(prediction);
  const t = wordTokens(truth);
  if (t.length === 0) return p.length === 0 ? { precision: 1, recall: 1, f1: 1 } : { precision: 0, recall: 0, f1: 0 };
  if (p.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const counts = new Map<string, number>();
  for (const token of t) counts.set(token, (counts.get(token) ?? 0) + 1);
  let overlap = 0;
  for (const token of p) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      overlap++;
      counts.set(token, left - 1);
    }
  }
  const precision = overlap / p.length;
  const recall = overlap / t.length;
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}

/**
 * Share of `snippets` found in `text` (1 when there are none): lower-cased substring tests, as the benchmark's.
 * By default both sides are read without their typography: curly quotes and primes as straight ones, en and em
 * dashes as hyphens, and any run of white space (a `<br>`'s line break, a no-break space) as one space. WCXB's
 * annotators wrote the snippets with straight quotes and one line per paragraph, so an extraction that keeps the
 * page's own `they’re` or a line's `<br>` misses a snippet it holds word for word (on the dev split, a third of
 * Gleaner's misses and of trafilatura's were only that). `exact` tests the raw text, the figure as first taken.
 */
export function snippetRate(text: string, snippets: string[], exact = false): number {
  if (snippets.length === 0) return 1;
  const read = exact ? (s: string) => s.toLowerCase() : plainTypography;
  const haystack = read(text);
  return snippets.filter((s) => haystack.includes(read(s))).length / snippets.length;
}

export function plainTypography(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u201b\u2032`]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ');
}
