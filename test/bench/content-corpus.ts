/** Loading and scoring the ground-truth corpus ($GLEANER_CORPUS_DIR, see corpus-dir.ts) for the content benchmark. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { decodeHTML } from 'entities';
import { parseHtml, visibleText, walk } from '../../libs/content/src';
import { corpusDir } from './corpus-dir';

export interface ArticleCase {
  id: string;
  url: string;
  html: string;
  truth: string;
}

export interface SwdeCase {
  id: string;
  site: string;
  url: string;
  html: string;
  /** attribute → normalised values */
  values: Record<string, string[]>;
}

export const SWDE_ATTRIBUTES = ['title', 'author', 'isbn_13', 'publisher', 'publication_date'] as const;

export function loadArticles(dir: string = corpusDir(['articles'])): ArticleCase[] {
  const truth = JSON.parse(readFileSync(join(dir, 'articles/ground-truth.json'), 'utf8')) as Record<
    string,
    { articleBody: string; url: string }
  >;
  return Object.keys(truth)
    .sort()
    .map((id) => ({
      id,
      url: truth[id].url,
      truth: truth[id].articleBody,
      html: gunzipSync(readFileSync(join(dir, `articles/html/${id}.html.gz`))).toString('utf8'),
    }));
}

export function loadSwde(dir: string = corpusDir(['swde'])): SwdeCase[] {
  const cases: SwdeCase[] = [];
  const pagesDir = join(dir, 'swde/pages');
  for (const siteDir of readdirSync(pagesDir).sort()) {
    const site = siteDir.replace(/^book-/, '');
    const truth: Record<string, Record<string, string[]>> = {};
    for (const attribute of SWDE_ATTRIBUTES) {
      const file = readFileSync(join(dir, `swde/groundtruth/book/book-${site}-${attribute}.txt`), 'utf8');
      const lines = file
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/)
        .slice(2);
      for (const line of lines) {
        if (line.trim() === '') continue;
        const [pageId, , ...values] = line.split('\t');
        (truth[pageId] ??= {})[attribute] = values
          .filter((v) => v !== '<NULL>')
          .map(normaliseValue)
          .filter((v) => v !== '');
      }
    }
    for (const file of readdirSync(join(pagesDir, siteDir)).sort()) {
      const id = file.replace(/\.htm\.gz$/, '');
      const html = gunzipSync(readFileSync(join(pagesDir, siteDir, file))).toString('utf8');
      const url = /<base href="([^"]+)"/.exec(html)?.[1] ?? `http://${site}.example/`;
      cases.push({ id: `${site}/${id}`, site, url, html, values: truth[id] ?? {} });
    }
  }
  return cases;
}

/** The corpus README's value normalisation: trim, collapse whitespace, strip a leading ": ", decode entities. */
export function normaliseValue(value: string): string {
  return collapse(decodeHTML(collapse(value)).replace(/^:\s*/, ''));
}

export function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Published article scoring: `\w+` tokens (Unicode, as Python's re), lower-cased, 4-gram shingle multisets. */
export function shingles(text: string): Map<string, number> {
  const tokens = words(text);
  const out = new Map<string, number>();
  // As the published script: texts shorter than 4 tokens form one shorter shingle.
  for (let i = 0; i < Math.max(1, tokens.length - 3); i++) {
    const shingle = tokens.slice(i, i + 4);
    if (shingle.length === 0) continue;
    const key = shingle.join(' ');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

export interface ShingleMatch {
  tp: number;
  fp: number;
  fn: number;
}

export function shingleMatch(prediction: string, truth: string): ShingleMatch {
  const p = shingles(prediction);
  const t = shingles(truth);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, count] of p) {
    const truthCount = t.get(key) ?? 0;
    tp += Math.min(count, truthCount);
    fp += Math.max(0, count - truthCount);
  }
  for (const [key, count] of t) fn += Math.max(0, count - (p.get(key) ?? 0));
  return { tp, fp, fn };
}

/** Mean precision over documents with a prediction, mean recall over documents with a truth, F1 of the means. */
export function scoreArticles(matches: ShingleMatch[]): { precision: number; recall: number; f1: number } {
  const precisions = matches.filter((m) => m.tp + m.fp > 0).map((m) => (m.fp === 0 && m.fn === 0 ? 1 : m.tp / (m.tp + m.fp)));
  const recalls = matches.filter((m) => m.tp + m.fn > 0).map((m) => (m.fp === 0 && m.fn === 0 ? 1 : m.tp / (m.tp + m.fn)));
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const precision = mean(precisions);
  const recall = mean(recalls);
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** The words of the page's headings (`<h1>`–`<h6>`), one string each: what a title line of the output reads as. */
export function pageHeadings(html: string): Set<string> {
  const headings = new Set<string>();
  walk(parseHtml(html), (el) => {
    if (!/^h[1-6]$/.test(el.name)) return true;
    const said = words(visibleText(el)).join(' ');
    if (said !== '') headings.add(said);
    return false;
  });
  return headings;
}

/**
 * The prediction without its title line, for a truth that is the article's body without its headline (the 181
 * articles): the first line of the output that reads as one of the page's headings (its words, a Markdown link's
 * target aside, are a heading's words), above the first line whose words the truth holds, is dropped; a line the truth
 * holds is never dropped. The same rule for text and Markdown. Gleaner keeps the page's main heading in the main
 * content by design (structure/main-heading.ts); this scores the body as the set's truth defines it.
 */
export function withoutTitleLine(prediction: string, headings: ReadonlySet<string>, truth: string): string {
  const truthWords = ` ${words(truth).join(' ')} `;
  const lines = prediction.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const said = words(lines[i].replace(/\]\([^)]*\)/g, ']')).join(' ');
    if (said === '') continue;
    if (truthWords.includes(` ${said} `)) break;
    if (headings.has(said)) return [...lines.slice(0, i), ...lines.slice(i + 1)].join('\n');
  }
  return prediction;
}
