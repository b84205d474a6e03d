import type { PageCapture } from '../archive.types';
import { parseHttpResponse } from './http-message';
import { readWarc, type WarcLimits } from './warc-reader';

/** What a WARC file gives a `warc-extract` job, record by record (docs/archive.md "WARC in"). */
export type WarcPageItem =
  | { kind: 'page'; index: number; capture: PageCapture }
  | { kind: 'failed'; index: number; url: string | null; category: 'invalid_request' | 'content_too_large' | 'http_error'; message: string }
  /** Reading stopped (broken compression, the expansion cap): the last item of the file. */
  | { kind: 'stopped'; index: number; message: string };

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)$/;

/**
 * The pages of a WARC file: every `response` record of an HTML page (2xx), as a fetch would have
 * given it. Other records (warcinfo, request, metadata, revisit, responses for images, scripts, ...)
 * and redirects are passed over; a 4xx/5xx page is a failed item (`http_error`, as a crawl reports
 * it); a record that cannot be read is a failed item with the reason, and the file goes on.
 */
export async function* warcPages(source: AsyncIterable<Buffer>, limits: WarcLimits): AsyncGenerator<WarcPageItem> {
  for await (const item of readWarc(source, limits)) {
    const where = `WARC record ${item.index + 1} (byte ${item.offset})`;
    if (item.kind === 'fatal') {
      yield { kind: 'stopped', index: item.index, message: `${where}: ${item.reason}; the records before it count.` };
      return;
    }
    if (item.kind === 'problem') {
      yield { kind: 'failed', index: item.index, url: item.targetUri, category: item.category, message: `${where}: ${item.reason}.` };
      continue;
    }
    if (item.warcType !== 'response') continue;
    const url = cleanUri(item.headers['warc-target-uri']);
    if (!/^application\/http/i.test(item.headers['content-type'] ?? 'application/http')) continue;
    const http = parseHttpResponse(item.content, limits.maxHeaderBytes, limits.maxRecordBytes);
    if ('error' in http) {
      yield { kind: 'failed', index: item.index, url, category: 'invalid_request', message: `${where}: ${http.error}.` };
      continue;
    }
    const [mediaType, ...params] = (http.headers['content-type'] ?? '').split(';').map((part) => part.trim());
    if (!HTML_TYPES.test(mediaType.toLowerCase())) continue;
    if (http.status >= 300 && http.status < 400) continue;
    if (!url) {
      yield {
        kind: 'failed',
        index: item.index,
        url: null,
        category: 'invalid_request',
        message: `${where}: the record has no WARC-Target-URI.`,
      };
      continue;
    }
    if (http.status >= 400 || http.status < 200) {
      yield { kind: 'failed', index: item.index, url, category: 'http_error', message: `${where}: the page answered HTTP ${http.status}.` };
      continue;
    }
    const charset =
      params
        .find((p) => /^charset=/i.test(p))
        ?.slice(8)
        .replace(/"/g, '') ?? '';
    yield {
      kind: 'page',
      index: item.index,
      capture: {
        url,
        finalUrl: url,
        status: http.status,
        headers: http.headers,
        redirects: [],
        mode: 'static',
        contentType: mediaType.toLowerCase(),
        charset,
        body: http.body,
        fetchedAt: warcDate(item.headers['warc-date']),
      },
    };
  }
}

function cleanUri(raw: string | undefined): string | null {
  if (!raw) return null;
  const trimmed = raw.trim();
  return trimmed.startsWith('<') && trimmed.endsWith('>') ? trimmed.slice(1, -1) : trimmed;
}

function warcDate(raw: string | undefined): string {
  const date = raw ? new Date(raw) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : new Date().toISOString();
}
