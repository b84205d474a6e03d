/**
 * Per-page probe of the `main` conversion on WCXB dev and the 181 articles, for reading failures: every page's
 * F1, precision, recall, snippets and time, per type, the main heading kept, written to a JSON file; with a second file, the pages
 * whose F1 moved most between the two. Not part of `npm test`.
 *
 * Usage: node --import tsx test/bench/content/wcxb-pages.ts OUT.json [BEFORE.json] [--type=forum] [--articles]
 * Also reads a trafilatura dump (`trafilatura_run.py CORPUS OUT`) from $WCXB_PEER to put its F1 beside each page.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { convertHtml } from '../../../libs/content/src';
import { loadArticles, pageHeadings, scoreArticles, shingleMatch, withoutTitleLine } from '../content-corpus';
import { corpusDir } from '../corpus-dir';
import { loadWcxb, snippetRate, WCXB_TYPES, wordScore } from '../wcxb-corpus';
import { headingsKept, type PageOutput } from './wcxb';

interface PageRow {
  id: string;
  type: string;
  f1: number;
  precision: number;
  recall: number;
  with: number;
  without: number;
  ms: number;
  peer?: number;
}

function main(): void {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith('--')));
  const only = [...flags].find((f) => f.startsWith('--type='))?.slice(7);
  const [outFile, beforeFile] = args;
  const corpus = corpusDir(['wcxb-dev/html']);
  const peer =
    process.env.WCXB_PEER && existsSync(process.env.WCXB_PEER)
      ? (JSON.parse(readFileSync(process.env.WCXB_PEER, 'utf8')) as { pages: Record<string, { text: string }> }).pages
      : undefined;
  const cases = loadWcxb(corpus).filter((c) => !only || c.type === only);
  for (const c of cases.slice(0, 20)) convertHtml({ html: c.html, url: c.url, mode: 'main', format: 'text' });
  const rows: PageRow[] = [];
  const outputs = new Map<string, PageOutput>();
  for (const c of cases) {
    const started = performance.now();
    const text = convertHtml({ html: c.html, url: c.url, mode: 'main', format: 'text' }).markdown;
    const ms = performance.now() - started;
    outputs.set(c.id, { text, ms });
    const s = wordScore(text, c.truth);
    rows.push({
      id: c.id,
      type: c.type,
      ...s,
      with: snippetRate(text, c.with),
      without: c.without.length === 0 ? 0 : snippetRate(text, c.without),
      ms,
      ...(peer ? { peer: wordScore(peer[c.id]?.text ?? '', c.truth).f1 } : {}),
    });
  }
  const summary: Record<string, Record<string, number>> = {};
  for (const type of [...WCXB_TYPES, 'overall']) {
    const of = rows.filter((r) => type === 'overall' || r.type === type);
    if (of.length === 0) continue;
    const avg = (k: keyof PageRow) => of.reduce((a, r) => a + ((r[k] as number) ?? 0), 0) / of.length;
    summary[type] = {
      pages: of.length,
      f1: avg('f1'),
      precision: avg('precision'),
      recall: avg('recall'),
      with: avg('with'),
      without: avg('without'),
      ms: avg('ms'),
      ...(peer ? { peer: avg('peer') } : {}),
    };
  }
  for (const [type, s] of Object.entries(summary)) {
    console.log(
      `${type.padEnd(13)} ${String(s.pages).padStart(4)}  F1 ${s.f1.toFixed(3)}  P ${s.precision.toFixed(3)}  R ${s.recall.toFixed(3)}  with ${s.with.toFixed(3)}  leaks ${s.without.toFixed(3)}  ${s.ms.toFixed(1)} ms${s.peer !== undefined ? `  peer ${s.peer.toFixed(3)}` : ''}`,
    );
  }
  const headings = headingsKept(cases, outputs);
  console.log(`main heading kept ${headings.kept}/${headings.pages}; missed ${headings.missed.join(' ')}`);
  if (flags.has('--articles')) {
    const articles = loadArticles(corpus);
    const titles = articles.map((a) => pageHeadings(a.html));
    for (const format of ['text', 'markdown'] as const) {
      const outputs = articles.map((a) => convertHtml({ html: a.html, url: a.url, mode: 'main', format }).markdown);
      const raw = scoreArticles(outputs.map((o, i) => shingleMatch(o, articles[i].truth))).f1;
      const untitled = outputs.map((o, i) => shingleMatch(withoutTitleLine(o, titles[i], articles[i].truth), articles[i].truth));
      console.log(`articles ${format}: F1 ${scoreArticles(untitled).f1.toFixed(4)} without the title line (raw ${raw.toFixed(4)})`);
    }
  }
  writeFileSync(outFile, JSON.stringify({ summary, rows }));
  if (beforeFile && existsSync(beforeFile)) {
    const before = new Map((JSON.parse(readFileSync(beforeFile, 'utf8')) as { rows: PageRow[] }).rows.map((r) => [r.id, r]));
    const moved = rows
      .filter((r) => before.has(r.id))
      .map((r) => ({ id: r.id, type: r.type, delta: r.f1 - before.get(r.id)!.f1, f1: r.f1 }));
    moved.sort((a, b) => a.delta - b.delta);
    const fmt = (m: (typeof moved)[number]) => `${m.id} ${m.type} ${m.delta >= 0 ? '+' : ''}${m.delta.toFixed(3)}→${m.f1.toFixed(2)}`;
    console.log(
      `worse: ${moved
        .filter((m) => m.delta < -0.01)
        .slice(0, 15)
        .map(fmt)
        .join(', ')}`,
    );
    console.log(
      `better: ${moved
        .filter((m) => m.delta > 0.01)
        .reverse()
        .slice(0, 15)
        .map(fmt)
        .join(', ')}`,
    );
    console.log(`moved: ${moved.filter((m) => m.delta < -0.01).length} worse, ${moved.filter((m) => m.delta > 0.01).length} better`);
  }
}

main();
