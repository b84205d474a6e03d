/**
 * What the page archive stores for real pages (docs/archive.md "What it costs"): every article and SWDE
 * book page of the ground-truth corpus ($GLEANER_CORPUS_DIR) compressed as the archive compresses a body
 * (libs/archive archive-codec: Brotli, quality 5). The benchmark site's pages are generated text, which
 * compresses better than real HTML; these numbers are the ones to plan storage with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { encodeBody } from '../../libs/archive/src/archive-codec';
import { corpusDir } from './corpus-dir';
import { median, round } from './crawl/procs';

export interface RealPageBytes {
  set: string;
  pages: number;
  html_bytes_median: number;
  html_bytes_mean: number;
  stored_bytes_median: number;
  stored_bytes_mean: number;
  compression_ratio: number;
}

async function measure(set: string, files: string[]): Promise<RealPageBytes> {
  const raw: number[] = [];
  const stored: number[] = [];
  for (const file of files) {
    const html = gunzipSync(readFileSync(file));
    raw.push(html.length);
    stored.push((await encodeBody(html)).length);
  }
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return {
    set,
    pages: files.length,
    html_bytes_median: median(raw),
    html_bytes_mean: round(sum(raw) / raw.length),
    stored_bytes_median: median(stored),
    stored_bytes_mean: round(sum(stored) / stored.length),
    compression_ratio: round(sum(raw) / sum(stored), 2),
  };
}

export async function realPageBytes(): Promise<RealPageBytes[]> {
  const dir = corpusDir(['articles/html', 'swde/pages']);
  const articles = readdirSync(join(dir, 'articles', 'html'))
    .filter((f) => f.endsWith('.html.gz'))
    .map((f) => join(dir, 'articles', 'html', f));
  const swde = readdirSync(join(dir, 'swde', 'pages')).flatMap((site) =>
    readdirSync(join(dir, 'swde', 'pages', site))
      .filter((f) => f.endsWith('.htm.gz'))
      .map((f) => join(dir, 'swde', 'pages', site, f)),
  );
  return [await measure('articles (news and blog pages)', articles), await measure('swde book pages (product pages)', swde)];
}
