import type { PageArchive } from '@app/archive';
import { decodeBody, type FetchResult } from '@app/fetch';

type ArchivedPage = NonNullable<Awaited<ReturnType<PageArchive['load']>>>;

/**
 * An archived page as the fetch that got it (docs/archive.md), for a conversion that runs again on what was
 * fetched then: a browser fetch's rendered HTML, a PDF's bytes as its body, else the body decoded with its
 * charset. `keepRaw` also carries the bytes as received (`raw`), as a fetch hands them to the page workers.
 */
export function archivedFetch(page: ArchivedPage, keepRaw: boolean): FetchResult {
  const { record } = page;
  const pdf = record.content_type === 'application/pdf';
  const html = page.rendered ? page.rendered.toString('utf8') : pdf ? '' : decodeBody(page.body, record.headers['content-type']).text;
  return {
    url: record.final_url,
    status: record.status,
    headers: record.headers,
    contentType: record.content_type,
    charset: page.rendered ? 'utf-8' : record.charset,
    html,
    ...(pdf ? { body: page.body } : keepRaw ? { raw: page.body } : {}),
    bytes: page.body.length,
    redirects: record.redirects,
    durationMs: 0,
    mode: record.fetch_mode,
  };
}
