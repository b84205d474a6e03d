/**
 * The WCXB development split in the content benchmark: Gleaner's `main` conversion (text) against trafilatura
 * (test/bench/content/trafilatura_run.py, in .venv-trafilatura from prepare.sh) on the same 1,497 pages in
 * the same run, scored as WCXB scores (wcxb-corpus.ts): word F1 per page type, with/without snippets, empty
 * extractions, the page's heading kept, and time per page.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { convertHtml, parseHtml, visibleText, walk } from '../../../libs/content/src';
import { snippetRate, WCXB_TYPES, wordScore, wordTokens, type WcxbCase, type WcxbType } from '../wcxb-corpus';

const REPO = resolve(__dirname, '../../..');
export const TRAFILATURA_PYTHON = join(REPO, '.venv-trafilatura/bin/python');

/**
 * Measured at 711ae4c (before issue 39) with this scoring: the "before" column. The snippet shares were first taken
 * on the raw text (the `Exact` ones) and measured again on the same code when the typography came out (snippetRate).
 */
export const WCXB_BEFORE = {
  f1: { article: 0.928, forum: 0.477, product: 0.5, collection: 0.543, listing: 0.554, documentation: 0.91, service: 0.713, overall: 0.78 },
  withSnippets: 0.737,
  withSnippetsExact: 0.672,
  withoutLeaks: 0.0485,
  withoutLeaksExact: 0.048,
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
  /** Snippet shares with typography read plainly (snippetRate); the `Exact` ones on the raw text. */
  withSnippets: number;
  withSnippetsExact: number;
  withoutLeaks: number;
  withoutLeaksExact: number;
  /** Empty extractions of pages whose truth is not empty. */
  empty: number;
  msPerPage: number;
  cpuMsPerPage: number;
}

export type WcxbScores = Record<WcxbType | 'overall', TypeScore>;

/** One page's output and its time: wall clock, and the CPU its process spent on it. */
export interface TimedPage extends PageOutput {
  cpuMs: number;
}

const CHUNK = 50;

/**
 * Gleaner and trafilatura on every page in the same run, timed under the same load: the pages go in chunks of 50,
 * each chunk through Gleaner (in this process) and then through trafilatura (one Python process that stays up,
 * `trafilatura_run.py --serve`), the order of the two swapped every chunk, and the whole set twice. A page's
 * times are the mean of its two passes; its text is the last pass's. On a shared host the load changes within
 * seconds, not within a chunk, so both sides see it alike (before, Gleaner ran before and after a whole
 * trafilatura pass, and a run beside other work compared nothing).
 */
export async function runInterleaved(
  cases: WcxbCase[],
  corpus: string,
  passes = 2,
): Promise<{ version: string; gleaner: Map<string, TimedPage>; peer: Map<string, TimedPage> }> {
  const child = spawn(TRAFILATURA_PYTHON, [join(__dirname, 'trafilatura_run.py'), corpus, '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`trafilatura --serve ended (${code ?? signal}); run test/bench/content/prepare.sh`)),
    ),
  );
  const next = async (): Promise<string> => {
    const line = await Promise.race([lines.next(), exited]);
    if (line.done) throw new Error('trafilatura --serve closed its output');
    return line.value;
  };
  try {
    const { version } = JSON.parse(await next()) as { version: string };
    for (const c of cases.slice(0, 20)) convertHtml({ html: c.html, url: c.url, mode: 'main', format: 'text' });
    const gleaner = new Map<string, TimedPage>();
    const peer = new Map<string, TimedPage>();
    const add = (into: Map<string, TimedPage>, id: string, page: TimedPage) => {
      const seen = into.get(id);
      into.set(id, seen ? { text: page.text, ms: seen.ms + page.ms, cpuMs: seen.cpuMs + page.cpuMs } : page);
    };
    const runGleaner = (chunk: WcxbCase[]) => {
      for (const c of chunk) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        const text = convertHtml({ html: c.html, url: c.url, mode: 'main', format: 'text' }).markdown;
        const ms = performance.now() - started;
        const used = process.cpuUsage(cpu);
        add(gleaner, c.id, { text, ms, cpuMs: (used.user + used.system) / 1000 });
      }
    };
    const runPeer = async (chunk: WcxbCase[]) => {
      child.stdin.write(`${JSON.stringify(chunk.map((c) => c.id))}\n`);
      const answer = JSON.parse(await next()) as Record<string, TimedPage>;
      for (const c of chunk) add(peer, c.id, answer[c.id] ?? { text: '', ms: 0, cpuMs: 0 });
    };
    for (let pass = 0; pass < passes; pass++) {
      for (let start = 0, n = 0; start < cases.length; start += CHUNK, n++) {
        const chunk = cases.slice(start, start + CHUNK);
        if ((n + pass) % 2 === 0) {
          runGleaner(chunk);
          await runPeer(chunk);
        } else {
          await runPeer(chunk);
          runGleaner(chunk);
        }
      }
    }
    for (const page of [...gleaner.values(), ...peer.values()]) {
      page.ms /= passes;
      page.cpuMs /= passes;
    }
    return { version, gleaner, peer };
  } finally {
    child.stdin.end();
    child.kill();
  }
}

export function scoreWcxb(cases: WcxbCase[], outputs: Map<string, TimedPage>): WcxbScores {
  const sums = new Map<string, TypeScore>();
  const zero = (): TypeScore => ({
    pages: 0,
    f1: 0,
    precision: 0,
    recall: 0,
    withSnippets: 0,
    withSnippetsExact: 0,
    withoutLeaks: 0,
    withoutLeaksExact: 0,
    empty: 0,
    msPerPage: 0,
    cpuMsPerPage: 0,
  });
  const add = (key: string, c: WcxbCase, page: TimedPage) => {
    const s = sums.get(key) ?? zero();
    const score = wordScore(page.text, c.truth);
    s.pages++;
    s.f1 += score.f1;
    s.precision += score.precision;
    s.recall += score.recall;
    s.withSnippets += snippetRate(page.text, c.with);
    s.withSnippetsExact += snippetRate(page.text, c.with, true);
    s.withoutLeaks += c.without.length === 0 ? 0 : snippetRate(page.text, c.without);
    s.withoutLeaksExact += c.without.length === 0 ? 0 : snippetRate(page.text, c.without, true);
    if (wordTokens(page.text).length === 0 && wordTokens(c.truth).length > 0) s.empty++;
    s.msPerPage += page.ms;
    s.cpuMsPerPage += page.cpuMs;
    sums.set(key, s);
  };
  for (const c of cases) {
    const page = outputs.get(c.id) ?? { text: '', ms: 0, cpuMs: 0 };
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
      withSnippetsExact: s.withSnippetsExact / n,
      withoutLeaks: s.withoutLeaks / n,
      withoutLeaksExact: s.withoutLeaksExact / n,
      msPerPage: s.msPerPage / n,
      cpuMsPerPage: s.cpuMsPerPage / n,
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
