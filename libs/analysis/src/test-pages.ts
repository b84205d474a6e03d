import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Real corpus pages (read from ../shared/corpus, never copied into the project) for specs and timing. */
export const CORPUS = path.resolve(__dirname, '../../../../shared/corpus');

export function readGz(file: string): string {
  return gunzipSync(readFileSync(file)).toString('utf8');
}

export function articlePages(limit: number): Array<{ id: string; html: string; url: string }> {
  const truth = JSON.parse(readFileSync(path.join(CORPUS, 'articles/ground-truth.json'), 'utf8')) as Record<string, { url?: string }>;
  return readdirSync(path.join(CORPUS, 'articles/html'))
    .sort()
    .slice(0, limit)
    .map((f) => {
      const id = f.replace(/\.html\.gz$/, '');
      return { id, html: readGz(path.join(CORPUS, 'articles/html', f)), url: truth[id]?.url ?? `https://news.example/${id}` };
    });
}

export function swdePage(site: 'booksamillion' | 'christianbook', n: number): { html: string; url: string } {
  const html = readGz(path.join(CORPUS, `swde/pages/book-${site}/${String(n).padStart(4, '0')}.htm.gz`));
  return { html, url: /<base href="([^"]+)"/.exec(html)?.[1] ?? `http://www.${site}.com/` };
}
