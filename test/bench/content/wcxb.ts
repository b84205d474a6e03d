/**
 * The WCXB development split in the content benchmark: Gleaner's `main` conversion (text) against trafilatura
 * (test/bench/content/trafilatura_run.py, in .venv-trafilatura from prepare.sh) on the same 1,497 pages in
 * the same run, scored as WCXB scores (wcxb-corpus.ts): word F1 per page type, with/without snippets, empty
 * extractions, the page's heading kept, and time per page.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { convertHtml, parseHtml, visibleText, walk } from '../../../libs/content/src';
import { snippetRate, WCXB_TYPES, wordScore, wordTokens, type WcxbCase, type WcxbType } from '../wcxb-corpus';

const REPO = resolve(__dirname, '../../..');
export const TRAFILATURA_PYTHON = join(REPO, '.venv-trafilatura/bin/python');

/** Measured at 711ae4c (before issue 39) with this scoring: the "before" column. */
export const WCXB_BEFORE = {
  f1: { article: 0.928, forum: 0.477, product: 0.5, collection: 0.543, listing: 0.554, documentation: 0.91, service: 0.713, overall: 0.78 },
  withSnippets: 0.672,
  withoutLeaks: 0.048,
  empty: 30,
} as const;

export interface PageOutput {
  text: string;
  ms: number;
}

export interface TypeScore {
  pages: number;
  f1: number;
  precision: number;
  recall: number;
  withSnippets: number;
  withoutLeaks: number;
  /** Empty extractions of pages whose truth is not empty. */
  empty: number;
  msPerPage: number;
}

export type WcxbScores = Record<WcxbType | 'overall', TypeScore>;

/** Gleaner on every page, twice (before and after the peer, to share the machine's load with it), timed per page. */
export function runGleaner(cases: WcxbCase[], passes = 1): Map<string, PageOutput> {
  for (const c of cases.slice(0, 20)) convertHtml({ html: c.html, url: c.url, mode: 'main', format: 'text' });
  const out = new Map<string, PageOutput>();
  for (let pass = 0; pass < passes; pass++) {
    for (const c of cases) {
      const started = performance.now();
      const text = convertHtml({ html: c.html, url: c.url, mode: 'main', format: 'text' }).markdown;
      const ms = performance.now() - started;
      const seen = out.get(c.id);
      out.set(c.id, { text, ms: seen ? seen.ms + ms : ms });
    }
  }
  for (const page of out.values()) page.ms /= passes;
  return out;
}

/** trafilatura 2.3.1 (`include_comments=False`) on every page, timed per page in its own process. */
export function runTrafilatura(corpus: string): { version: string; pages: Map<string, PageOutput> } {
  const dir = mkdtempSync(join(tmpdir(), 'wcxb-trafilatura-'));
  try {
    const file = join(dir, 'out.json');
    const run = spawnSync(TRAFILATURA_PYTHON, [join(__dirname, 'trafilatura_run.py'), corpus, file], { stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`trafilatura run failed (${run.status ?? run.signal}); run test/bench/content/prepare.sh`);
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version: string; pages: Record<string, PageOutput> };
    return { version: parsed.version, pages: new Map(Object.entries(parsed.pages)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function scoreWcxb(cases: WcxbCase[], outputs: Map<string, PageOutput>): WcxbScores {
  const sums = new Map<string, TypeScore>();
  const add = (key: string, c: WcxbCase, page: PageOutput) => {
    const s = sums.get(key) ?? { pages: 0, f1: 0, precision: 0, recall: 0, withSnippets: 0, withoutLeaks: 0, empty: 0, msPerPage: 0 };
    const score = wordScore(page.text, c.truth);
    s.pages++;
    s.f1 += score.f1;
    s.precision += score.precision;
    s.recall += score.recall;
    s.withSnippets += snippetRate(page.text, c.with);
    s.withoutLeaks += c.without.length === 0 ? 0 : snippetRate(page.text, c.without);
    if (wordTokens(page.text).length === 0 && wordTokens(c.truth).length > 0) s.empty++;
    s.msPerPage += page.ms;
    sums.set(key, s);
  };
  for (const c of cases) {
    const page = outputs.get(c.id) ?? { text: '', ms: 0 };
    add(c.type, c, page);
    add('overall', c, page);
  }
  const scores = {} as WcxbScores;
  for (const key of [...WCXB_TYPES, 'overall'] as const) {
    const s = sums.get(key)!;
    const n = s.pages;
    scores[key] = {
      ...s,
      f1: s.f1 / n,
      precision: s.precision / n,
      recall: s.recall / n,
      withSnippets: s.withSnippets / n,
      withoutLeaks: s.withoutLeaks / n,
      msPerPage: s.msPerPage / n,
    };
  }
  return scores;
}

/**
 * The page's main heading, found without Gleaner's rule: the h1–h3 whose words best match the truth's title
 * (at least 0.6 of the heading's words and of the title's). Kept when its words appear in order in the text.
 */
export function headingsKept(cases: WcxbCase[], outputs: Map<string, PageOutput>): { pages: number; kept: number; missed: string[] } {
  let pages = 0;
  let kept = 0;
  const missed: string[] = [];
  for (const c of cases) {
    const heading = truthHeading(c);
    if (heading === undefined) continue;
    pages++;
    if (
      wordTokens(outputs.get(c.id)?.text ?? '')
        .join(' ')
        .includes(heading)
    )
      kept++;
    else missed.push(c.id);
  }
  return { pages, kept, missed };
}

function truthHeading(c: WcxbCase): string | undefined {
  const title = new Set(wordTokens(c.title));
  if (title.size === 0) return undefined;
  let best: string | undefined;
  let bestScore = 0;
  walk(parseHtml(c.html), (el) => {
    if (!/^h[1-3]$/.test(el.name)) return true;
    const words = wordTokens(visibleText(el));
    if (words.length === 0) return false;
    const shared = words.filter((w) => title.has(w)).length;
    const score = Math.min(shared / words.length, shared / title.size);
    if (score > bestScore) {
      best = words.join(' ');
      bestScore = score;
    }
    return false;
  });
  return bestScore >= 0.6 ? best : undefined;
}
