/**
 * Content benchmark on the ground-truth corpus in $GLEANER_CORPUS_DIR (default and layout: corpus-dir.ts):
 * - `main`: F1 on 181 articles (published scoring) and ms/page;
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
  scoreArticles,
  shingleMatch,
  SWDE_ATTRIBUTES,
  type ArticleCase,
  type SwdeCase,
} from './content-corpus';
import { corpusDir } from './corpus-dir';

const TARGETS = { fullRecall: 0.995, fullTokenRatio: 0.05, mainF1: 0.94, mainMsPerPage: 10, poolPagesPerSecond: 300 };

function mainScore(articles: ArticleCase[], format: OutputFormat) {
  // Warm-up pass so JIT compilation is not billed to the first pages.
  for (const a of articles.slice(0, 20)) convertHtml({ html: a.html, url: a.url, mode: 'main', format });
  const matches = [];
  const times: number[] = [];
  for (const a of articles) {
    const started = performance.now();
    const result = convertHtml({ html: a.html, url: a.url, mode: 'main', format });
    times.push(performance.now() - started);
    matches.push(shingleMatch(result.markdown, a.truth));
  }
  return { ...scoreArticles(matches), msPerPage: mean(times), p95Ms: percentile(times, 0.95) };
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
  const corpus = corpusDir(['articles/ground-truth.json', 'articles/html', 'swde/pages', 'swde/groundtruth/book']);
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

  const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
  const ok = (pass: boolean) => (pass ? 'yes' : 'NO');
  const rows: [string, string, string, string][] = [
    ['main F1 (text, 181 articles)', mainText.f1.toFixed(4), `≥ ${TARGETS.mainF1}`, ok(mainText.f1 >= TARGETS.mainF1)],
    ['main precision / recall', `${mainText.precision.toFixed(4)} / ${mainText.recall.toFixed(4)}`, '', ''],
    ['main F1 (markdown with URLs)', mainMarkdown.f1.toFixed(4), '(info)', ''],
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
  };
  const dir = resolve(__dirname, '../../bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'content.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${join(dir, 'content.json')}`);
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
