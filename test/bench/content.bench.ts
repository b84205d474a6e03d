/**
 * Content benchmark on the ground-truth corpus in $GLEANER_CORPUS_DIR (default and layout: corpus-dir.ts):
 * - `main`: F1 on 181 articles (published scoring) and ms/page;
 * - `main` on the whole web: the WCXB development split (1,497 pages, seven page types, WCXB's own scoring)
 *   against trafilatura in the same run, and the docs-site checks on PostgreSQL's and Python's manuals
 *   (content/wcxb.ts, content/docs-sites.ts; `npm run bench:content` installs the peer and the sites first with
 *   content/prepare.sh);
 * - `full`: value recall on 500 SWDE book pages and cl100k token ratio vs raw HTML;
 * - throughput through a 2-thread ContentPool (full mode, all pages).
 * Writes bench-results/content.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getEncoding } from 'js-tiktoken';
import { convertHtml, ContentPool, type ConversionInput, type LinkUrlPolicy, type OutputFormat } from '../../libs/content/src';
import {
  collapse,
  loadArticles,
  loadSwde,
  pageHeadings,
  scoreArticles,
  shingleMatch,
  SWDE_ATTRIBUTES,
  type ArticleCase,
  type SwdeCase,
  withoutTitleLine,
} from './content-corpus';
import { checkDocsSite, DOCS_SITES, type DocsSiteResult } from './content/docs-sites';
import { headingsKept, runInterleaved, scoreWcxb, WCXB_BEFORE } from './content/wcxb';
import { corpusDir } from './corpus-dir';
import { loadWcxb, WCXB_TYPES } from './wcxb-corpus';

const TARGETS = {
  fullRecall: 0.995,
  fullTokenRatio: 0.05,
  mainF1: 0.94,
  /** Issue 39: the 181 articles no lower than at the issue (711ae4c), without the title line. */
  mainF1Text: 0.967,
  mainF1Markdown: 0.911,
  mainMsPerPage: 10,
  poolPagesPerSecond: 300,
  wcxbF1: 0.87,
  wcxbTypeF1: 0.75,
  wcxbWithSnippets: 0.85,
  wcxbWithoutLeaks: WCXB_BEFORE.withoutLeaks,
  /** Gleaner's time per page over trafilatura's, same pages, same run. */
  wcxbTimeRatio: 0.2,
  headingsKept: 0.99,
};

function mainScore(articles: ArticleCase[], format: OutputFormat) {
  // Warm-up pass so JIT compilation is not billed to the first pages.
  for (const a of articles.slice(0, 20)) convertHtml({ html: a.html, url: a.url, mode: 'main', format });
  const matches = [];
  const untitled = [];
  const times: number[] = [];
  for (const a of articles) {
    const started = performance.now();
    const result = convertHtml({ html: a.html, url: a.url, mode: 'main', format });
    times.push(performance.now() - started);
    matches.push(shingleMatch(result.markdown, a.truth));
    untitled.push(shingleMatch(withoutTitleLine(result.markdown, pageHeadings(a.html), a.truth), a.truth));
  }
  // The set's truth is the body without its headline; Gleaner keeps the title heading (content-corpus.ts withoutTitleLine).
  const withoutTitle = scoreArticles(untitled);
  return { ...scoreArticles(matches), withoutTitle, msPerPage: mean(times), p95Ms: percentile(times, 0.95) };
}

function fullScore(pages: SwdeCase[], htmlTokens: number[], linkUrls: LinkUrlPolicy) {
  const enc = getEncoding('cl100k_base');
  let found = 0;
  let total = 0;
  let outTokens = 0;
  let inTokens = 0;
  const ratios: number[] = [];
  const times: number[] = [];
  const byAttribute: Record<string, { found: number; total: number }> = {};
  const missed: string[] = [];
  pages.forEach((page, i) => {
    const started = performance.now();
    const result = convertHtml({ html: page.html, url: page.url, mode: 'full', linkUrls });
    times.push(performance.now() - started);
    // Compare case-insensitively with whitespace collapsed on both sides (corpus README).
    const haystack = collapse(result.markdown).toLowerCase();
    for (const attribute of SWDE_ATTRIBUTES) {
      const stats = (byAttribute[attribute] ??= { found: 0, total: 0 });
      for (const value of page.values[attribute] ?? []) {
        total++;
        stats.total++;
        if (haystack.includes(value.toLowerCase())) {
          found++;
          stats.found++;
        } else if (missed.length < 20) missed.push(`${page.id} ${attribute}: ${value}`);
      }
    }
    const tokens = enc.encode(result.markdown, [], []).length;
    outTokens += tokens;
    inTokens += htmlTokens[i];
    ratios.push(tokens / htmlTokens[i]);
  });
  return {
    linkUrls,
    recall: found / total,
    values: total,
    missedValues: total - found,
    missedExamples: missed,
    byAttribute: Object.fromEntries(Object.entries(byAttribute).map(([k, v]) => [k, v.found / v.total])),
    tokenRatio: outTokens / inTokens,
    meanPageTokenRatio: mean(ratios),
    meanOutputTokens: outTokens / pages.length,
    msPerPage: mean(times),
  };
}

async function poolThroughput(inputs: ConversionInput[], threads: number) {
  const pool = new ContentPool({ threads, taskTimeoutMs: 30_000 });
  try {
    // Warm-up: start the workers and JIT-compile the converter in each.
    await Promise.all(inputs.slice(0, threads * 20).map((input) => pool.convert(input)));
    const started = performance.now();
    const inFlight = threads * 4;
    let next = 0;
    const runner = async () => {
      while (next < inputs.length) await pool.convert(inputs[next++]);
    };
    await Promise.all(Array.from({ length: inFlight }, runner));
    const seconds = (performance.now() - started) / 1000;
    return { threads, pages: inputs.length, seconds, pagesPerSecond: inputs.length / seconds };
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const corpus = corpusDir(['articles/ground-truth.json', 'articles/html', 'swde/pages', 'swde/groundtruth/book', 'wcxb-dev/html']);
  console.log(`corpus: ${corpus}`);
  const articles = loadArticles(corpus);
  const swde = loadSwde(corpus);
  const enc = getEncoding('cl100k_base');
  const htmlTokens = swde.map((page) => enc.encode(page.html, [], []).length);

  const mainText = mainScore(articles, 'text');
  const mainMarkdown = mainScore(articles, 'markdown');
  const fullProse = fullScore(swde, htmlTokens, 'prose');
  const fullAll = fullScore(swde, htmlTokens, 'all');
  const fullNone = fullScore(swde, htmlTokens, 'none');
  const allPages: ConversionInput[] = [
    ...swde.map((p) => ({ html: p.html, url: p.url, mode: 'full' as const })),
    ...articles.map((a) => ({ html: a.html, url: a.url, mode: 'full' as const })),
  ];
  const pool = await poolThroughput(allPages, 2);
  const poolMain = await poolThroughput(
    articles.map((a) => ({ html: a.html, url: a.url, mode: 'main' as const })),
    2,
  );

  const wcxb = await wholeWeb(corpus);
  const docsSites = DOCS_SITES.map(checkDocsSite);

  const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
  const ok = (pass: boolean) => (pass ? 'yes' : 'NO');
  const rows: [string, string, string, string][] = [
    ['main F1 (text, 181 articles)', mainText.f1.toFixed(4), `≥ ${TARGETS.mainF1}`, ok(mainText.f1 >= TARGETS.mainF1)],
    ['main precision / recall', `${mainText.precision.toFixed(4)} / ${mainText.recall.toFixed(4)}`, '', ''],
    [
      'main F1 (text), without the title line (raw)',
      `${mainText.withoutTitle.f1.toFixed(4)} (${mainText.f1.toFixed(4)})`,
      `≥ ${TARGETS.mainF1Text}`,
      ok(mainText.withoutTitle.f1 >= TARGETS.mainF1Text),
    ],
    [
      'main F1 (markdown with URLs), without the title line (raw)',
      `${mainMarkdown.withoutTitle.f1.toFixed(4)} (${mainMarkdown.f1.toFixed(4)})`,
      `≥ ${TARGETS.mainF1Markdown}`,
      ok(mainMarkdown.withoutTitle.f1 >= TARGETS.mainF1Markdown),
    ],
    [
      'main ms/page (1 thread)',
      mainText.msPerPage.toFixed(2),
      `≤ ${TARGETS.mainMsPerPage}`,
      ok(mainText.msPerPage <= TARGETS.mainMsPerPage),
    ],
    [
      'full recall (500 SWDE, links=prose)',
      fullProse.recall.toFixed(4),
      `≥ ${TARGETS.fullRecall}`,
      ok(fullProse.recall >= TARGETS.fullRecall),
    ],
    [
      'full token ratio (links=prose)',
      pct(fullProse.tokenRatio),
      `≤ ${pct(TARGETS.fullTokenRatio)}`,
      ok(fullProse.tokenRatio <= TARGETS.fullTokenRatio),
    ],
    ['full mean per-page ratio (prose)', pct(fullProse.meanPageTokenRatio), '(info)', ''],
    ['full recall / ratio (links=all)', `${fullAll.recall.toFixed(4)} / ${pct(fullAll.tokenRatio)}`, '(info)', ''],
    ['full recall / ratio (links=none)', `${fullNone.recall.toFixed(4)} / ${pct(fullNone.tokenRatio)}`, '(info)', ''],
    ['full ms/page (1 thread)', fullProse.msPerPage.toFixed(2), '(info)', ''],
    [
      `pool full pages/s (2 threads, ${pool.pages} pages)`,
      pool.pagesPerSecond.toFixed(0),
      `≥ ${TARGETS.poolPagesPerSecond}`,
      ok(pool.pagesPerSecond >= TARGETS.poolPagesPerSecond),
    ],
    [`pool main pages/s (2 threads, ${poolMain.pages} articles)`, poolMain.pagesPerSecond.toFixed(0), '(info)', ''],
  ];
  const width = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c].length), 6));
  console.log(['metric', 'value', 'target', 'met'].map((h, c) => h.padEnd(width[c])).join(' | '));
  console.log(width.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(width[c])).join(' | '));
  if (fullProse.missedExamples.length > 0) console.log(`missed values: ${fullProse.missedExamples.join('; ')}`);
  printWholeWeb(wcxb, docsSites);

  const out = {
    date: new Date().toISOString(),
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cpus: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      loadAverage1m: Number(loadavg()[0].toFixed(2)),
    },
    node: process.version,
    targets: TARGETS,
    main: { text: mainText, markdown: mainMarkdown },
    full: { prose: fullProse, all: fullAll, none: fullNone },
    pool: { full: pool, main: poolMain },
    wcxb,
    docsSites,
  };
  const dir = resolve(__dirname, '../../bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'content.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${join(dir, 'content.json')}`);
}

/** WCXB dev: Gleaner and trafilatura on the same pages, chunks interleaved so both are timed under the same load. */
async function wholeWeb(corpus: string) {
  const cases = loadWcxb(corpus);
  const run = await runInterleaved(cases, corpus);
  const scores = scoreWcxb(cases, run.gleaner);
  const peerScores = scoreWcxb(cases, run.peer);
  const headings = headingsKept(cases, run.gleaner);
  return { pages: cases.length, before: WCXB_BEFORE, gleaner: scores, trafilatura: { version: run.version, ...peerScores }, headings };
}

function printWholeWeb(wcxb: Awaited<ReturnType<typeof wholeWeb>>, docs: DocsSiteResult[]): void {
  console.log(`\nWCXB dev (${wcxb.pages} pages), word F1; time per page against trafilatura ${wcxb.trafilatura.version} in the same run`);
  console.log('type          | pages | before | Gleaner | trafilatura | Gleaner ms | trafilatura ms | time ratio | empty');
  console.log('--------------|-------|--------|---------|-------------|------------|----------------|------------|------');
  for (const type of [...WCXB_TYPES, 'overall'] as const) {
    const g = wcxb.gleaner[type];
    const t = wcxb.trafilatura[type];
    console.log(
      [
        type.padEnd(13),
        String(g.pages).padStart(5),
        WCXB_BEFORE.f1[type].toFixed(3).padStart(6),
        g.f1.toFixed(3).padStart(7),
        t.f1.toFixed(3).padStart(11),
        g.msPerPage.toFixed(1).padStart(10),
        t.msPerPage.toFixed(1).padStart(14),
        (g.msPerPage / t.msPerPage).toFixed(3).padStart(10),
        String(g.empty).padStart(5),
      ].join(' | '),
    );
  }
  const o = wcxb.gleaner.overall;
  const met = (pass: boolean) => (pass ? 'met' : 'NOT met');
  const worst = Math.min(...WCXB_TYPES.map((t) => wcxb.gleaner[t].f1));
  console.log(
    `overall F1 ${o.f1.toFixed(3)} (target ≥ ${TARGETS.wcxbF1}: ${met(o.f1 >= TARGETS.wcxbF1)}); lowest type ${worst.toFixed(3)} (≥ ${TARGETS.wcxbTypeF1}: ${met(worst >= TARGETS.wcxbTypeF1)})`,
  );
  const t = wcxb.trafilatura.overall;
  console.log(
    `with-snippets ${o.withSnippets.toFixed(3)} (before ${WCXB_BEFORE.withSnippets}, target ≥ ${TARGETS.wcxbWithSnippets}: ${met(o.withSnippets >= TARGETS.wcxbWithSnippets)}); trafilatura ${t.withSnippets.toFixed(3)}; on the raw text ${o.withSnippetsExact.toFixed(3)} (before ${WCXB_BEFORE.withSnippetsExact}), trafilatura ${t.withSnippetsExact.toFixed(3)}`,
  );
  console.log(
    `without-leaks ${o.withoutLeaks.toFixed(3)} (before ${WCXB_BEFORE.withoutLeaks}, no worse: ${met(o.withoutLeaks <= TARGETS.wcxbWithoutLeaks)}); trafilatura ${t.withoutLeaks.toFixed(3)}; on the raw text ${o.withoutLeaksExact.toFixed(3)} (before ${WCXB_BEFORE.withoutLeaksExact}), trafilatura ${t.withoutLeaksExact.toFixed(3)}`,
  );
  const ratio = o.msPerPage / t.msPerPage;
  const cpuRatio = o.cpuMsPerPage / t.cpuMsPerPage;
  console.log(
    `time per page ${o.msPerPage.toFixed(1)} ms against ${t.msPerPage.toFixed(1)} ms: ${ratio.toFixed(3)} (≤ ${TARGETS.wcxbTimeRatio}: ${met(ratio <= TARGETS.wcxbTimeRatio)}); CPU per page ${o.cpuMsPerPage.toFixed(1)} ms against ${t.cpuMsPerPage.toFixed(1)} ms: ${cpuRatio.toFixed(3)}`,
  );
  console.log(`empty extractions ${o.empty} (before ${WCXB_BEFORE.empty}, target 0: ${met(o.empty === 0)})`);
  const h = wcxb.headings;
  console.log(
    `main heading kept ${h.kept}/${h.pages} = ${pct1(h.kept / h.pages)} (≥ 99 %: ${met(h.kept >= h.pages * TARGETS.headingsKept)}); missed e.g. ${h.missed.slice(0, 12).join(' ')}`,
  );
  for (const site of docs) {
    console.log(`\n${site.site}: ${site.pages} pages, ${site.msPerPage.toFixed(1)} ms/page (main)`);
    console.log(
      `  main heading kept ${site.heading.kept}/${site.heading.pages} (${met(site.heading.kept >= site.heading.pages * TARGETS.headingsKept)})${site.heading.missed.length ? `; missed ${site.heading.missed.join(' ')}` : ''}`,
    );
    console.log(
      `  table-of-contents/index pages with their links as list items ${site.tocPages.kept}/${site.tocPages.pages}${site.tocPages.missed.length ? `; missed ${site.tocPages.missed.join(', ')}` : ''}`,
    );
    console.log(
      `  navigation bars rendered as tables: main ${site.navTables.main}, full ${site.navTables.full}${site.navTables.examples.length ? ` (${site.navTables.examples.join(', ')})` : ''}`,
    );
    if (site.synopsis)
      console.log(
        `  sql-*.html keeping their Synopsis ${site.synopsis.kept}/${site.synopsis.pages}${site.synopsis.missed.length ? `; missed ${site.synopsis.missed.join(' ')}` : ''}`,
      );
    if (site.createTable) {
      const c = site.createTable;
      console.log(
        `  sql-createtable.html: ${Object.entries(c.sections)
          .map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`)
          .join(', ')}; code blocks ${c.codeBlocks}/${c.preBlocks}`,
      );
    }
  }
}

function pct1(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
