import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * Pages for specs, all inside the repository:
 * - real news/blog articles vendored from the article-extraction benchmark (test/fixtures/corpus/articles, MIT);
 * - book product pages written for this project (./test-fixtures: two made-up shops, made-up books).
 */
export const ARTICLES_DIR = path.resolve(__dirname, '../../../test/fixtures/corpus/articles');
export const BOOK_PAGES_DIR = path.resolve(__dirname, 'test-fixtures');

export type BookSite = 'riverbend' | 'harborlane';

export function readGz(file: string): string {
  return gunzipSync(readFileSync(file)).toString('utf8');
}

/** The vendored articles in id order (all of them without a limit). */
export function articlePages(limit?: number): Array<{ id: string; html: string; url: string }> {
  const truth = JSON.parse(readFileSync(path.join(ARTICLES_DIR, 'ground-truth.json'), 'utf8')) as Record<string, { url?: string }>;
  return readdirSync(path.join(ARTICLES_DIR, 'html'))
    .filter((f) => f.endsWith('.html.gz'))
    .sort()
    .slice(0, limit)
    .map((f) => {
      const id = f.replace(/\.html\.gz$/, '');
      return { id, html: readGz(path.join(ARTICLES_DIR, 'html', f)), url: truth[id]?.url ?? `https://news.example/${id}` };
    });
}

/**
 * Book product pages in two site templates: `riverbend` (older markup, label/value list items, no JSON-LD) and
 * `harborlane` (semantic markup, dl spec list, JSON-LD Product). The URL is the page's canonical link.
 */
export function bookPages(site?: BookSite): Array<{ id: string; site: BookSite; html: string; url: string }> {
  return readdirSync(BOOK_PAGES_DIR)
    .filter((f) => f.endsWith('.html') && (site === undefined || f.startsWith(`${site}-`)))
    .sort()
    .map((f) => {
      const html = readFileSync(path.join(BOOK_PAGES_DIR, f), 'utf8');
      const url = /<link rel="canonical" href="([^"]+)"/.exec(html)?.[1];
      if (!url) throw new Error(`${f}: no canonical link`);
      return { id: f.replace(/\.html$/, ''), site: f.split('-')[0] as BookSite, html, url };
    });
}

export function bookPage(id: string): { id: string; site: BookSite; html: string; url: string } {
  const page = bookPages().find((p) => p.id === id);
  if (!page) throw new Error(`no fixture book page ${id}`);
  return page;
}
