/**
 * Docs-site checks of the `main` conversion on two real documentation sites Debian installs
 * (test/bench/content/prepare.sh): PostgreSQL's manual and Python's. Per site:
 * - the page's main heading (the first heading of the highest level the page has) is a heading of the markdown;
 * - table-of-contents and index pages (a `toc`/`toctree-wrapper`/`index` block holding most of the page's links)
 *   keep their links as list items;
 * - no prev/up/next navigation bar becomes a table, in `main` or `full`;
 * - reference pages keep their sibling sections: every `sql-*.html` with a Synopsis keeps it, and
 *   sql-createtable.html keeps its title, Synopsis, Description, Parameters and Examples and all 26 code blocks.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { convertHtml, parseHtml, visibleText, walk, type Element } from '../../../libs/content/src';

export const DOCS_SITES = [
  { name: 'postgresql-doc-15', dir: '/usr/share/doc/postgresql-doc-15/html' },
  { name: 'python3.11-doc', dir: '/usr/share/doc/python3.11/html' },
] as const;

const TOC_CLASS = /(?:^|\s)(?:toc|toctree-wrapper|index|genindex)(?:\s|$)/;
const NAV_WORDS = /^(?:prev(?:ious)?|next|up|home)$/i;

export interface DocsSiteResult {
  site: string;
  pages: number;
  msPerPage: number;
  heading: { pages: number; kept: number; missed: string[] };
  tocPages: { pages: number; kept: number; missed: string[] };
  navTables: { main: number; full: number; examples: string[] };
  synopsis?: { pages: number; kept: number; missed: string[] };
  createTable?: { sections: Record<string, boolean>; codeBlocks: number; preBlocks: number };
}

export function checkDocsSite(site: (typeof DOCS_SITES)[number]): DocsSiteResult {
  const files = htmlFiles(site.dir);
  const result: DocsSiteResult = {
    site: site.name,
    pages: files.length,
    msPerPage: 0,
    heading: { pages: 0, kept: 0, missed: [] },
    tocPages: { pages: 0, kept: 0, missed: [] },
    navTables: { main: 0, full: 0, examples: [] },
  };
  if (site.name === 'postgresql-doc-15') result.synopsis = { pages: 0, kept: 0, missed: [] };
  let ms = 0;
  for (const file of files) {
    const html = readFileSync(file, 'utf8');
    const url = `file://${file}`;
    const name = relative(site.dir, file);
    const started = performance.now();
    const main = convertHtml({ html, url, mode: 'main', format: 'markdown' }).markdown;
    ms += performance.now() - started;
    const full = convertHtml({ html, url, mode: 'full', format: 'markdown' }).markdown;
    const doc = parseHtml(html);
    const headingLines = new Set(
      main
        .split('\n')
        .filter((l) => l.startsWith('#'))
        .map((l) => words(l)),
    );

    const heading = mainHeadingText(doc);
    if (heading !== undefined) {
      result.heading.pages++;
      if ([...headingLines].some((line) => line.includes(heading))) result.heading.kept++;
      else if (result.heading.missed.length < 10) result.heading.missed.push(name);
    }

    const toc = tocLinks(doc);
    if (toc !== undefined) {
      result.tocPages.pages++;
      const items = main
        .split('\n')
        .filter((l) => /^\s*(?:[-*]|\d+\.) /.test(l))
        .map(words)
        .join('\n');
      const listed = toc.filter((text) => items.includes(text)).length;
      if (listed >= toc.length * 0.9) result.tocPages.kept++;
      else if (result.tocPages.missed.length < 10) result.tocPages.missed.push(`${name} (${listed}/${toc.length})`);
    }

    for (const [mode, markdown] of [
      ['main', main],
      ['full', full],
    ] as const) {
      if (hasNavTable(markdown)) {
        result.navTables[mode]++;
        if (result.navTables.examples.length < 5) result.navTables.examples.push(`${mode} ${name}`);
      }
    }

    if (result.synopsis && /^sql-.*\.html$/.test(basename(file)) && html.includes('class="refsynopsisdiv"')) {
      result.synopsis.pages++;
      if (headingLines.has('synopsis')) result.synopsis.kept++;
      else if (result.synopsis.missed.length < 10) result.synopsis.missed.push(name);
    }
    if (basename(file) === 'sql-createtable.html') {
      const sections = ['create table', 'synopsis', 'description', 'parameters', 'examples'];
      result.createTable = {
        sections: Object.fromEntries(sections.map((s) => [s, headingLines.has(s)])),
        codeBlocks: (main.match(/^```/gm) ?? []).length / 2,
        preBlocks: (html.match(/<pre\b/g) ?? []).length,
      };
    }
  }
  result.msPerPage = ms / Math.max(1, files.length);
  return result;
}

function htmlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (entry.startsWith('_')) continue;
    if (statSync(path).isDirectory()) out.push(...htmlFiles(path));
    else if (entry.endsWith('.html')) out.push(path);
  }
  return out;
}

/** The first heading of the highest level the page has (its title on these sites), as words. */
function mainHeadingText(doc: ReturnType<typeof parseHtml>): string | undefined {
  let best: Element | undefined;
  walk(doc, (el) => {
    if (/^h[1-6]$/.test(el.name)) {
      if (!best || el.name < best.name) best = el;
      return false;
    }
    return el.name !== 'nav';
  });
  const text = best ? words(visibleText(best)) : '';
  return text === '' ? undefined : text;
}

/** The link texts of the page's table of contents or index, when it holds most of the page's links. */
function tocLinks(doc: ReturnType<typeof parseHtml>): string[] | undefined {
  let all = 0;
  walk(doc, (el) => {
    if (el.name === 'a' && el.attribs.href) all++;
    return true;
  });
  let toc: string[] | undefined;
  walk(doc, (el) => {
    if (toc || !TOC_CLASS.test(el.attribs.class ?? '')) return true;
    const links: string[] = [];
    walk(el, (a) => {
      if (a.name === 'a' && a.attribs.href) links.push(words(visibleText(a)));
      return true;
    });
    if (links.length >= 10 && links.length >= all * 0.5) toc = links.filter((t) => t !== '');
    return false;
  });
  return toc;
}

/** A table row with two or more prev/next/up/home cells. */
function hasNavTable(markdown: string): boolean {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .some((line) => line.split('|').filter((cell) => NAV_WORDS.test(cell.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim())).length >= 2);
}

function words(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).join(' ');
}
