import type { FetchResult } from '@app/fetch';
import type { PageCapture } from './archive.types';

/**
 * What the archive keeps of a fetch (docs/archive.md "What is kept"), one shape for every job that keeps
 * pages (a crawl's or a batch's page worker, an extract): the URL asked for and where it led, the
 * status, headers and redirects, the body as received and, for a browser fetch, the rendered HTML.
 */
export function pageCapture(requestedUrl: string, fetched: FetchResult, fetchedAt: string): PageCapture {
  const rendered = fetched.mode === 'dynamic' ? fetched.html : undefined;
  return {
    url: requestedUrl,
    finalUrl: fetched.url,
    status: fetched.status,
    headers: fetched.headers,
    redirects: fetched.redirects,
    mode: fetched.mode,
    contentType: fetched.contentType,
    charset: fetched.charset,
    // A browser fetch whose document bytes the browser did not keep: its rendered HTML stands for them.
    body: fetched.body ?? fetched.raw ?? Buffer.from(fetched.html, 'utf8'),
    ...(rendered !== undefined ? { rendered } : {}),
    fetchedAt,
  };
}
