import { AppError, Errors } from '@app/core';

/** The media types of a URL list body (docs/api.md "Batch list bodies"). */
export const URL_LIST_MEDIA_TYPES = ['text/plain', 'application/x-ndjson'] as const;
export type UrlListMediaType = (typeof URL_LIST_MEDIA_TYPES)[number];

/** Longest line of a list body: a URL is at most 2,048 characters; the rest is room for ndjson quoting. */
export const URL_LIST_MAX_LINE_BYTES = 8192;

/** One URL of a list body: its index among the URLs, the line it was on (1-based) and the text as sent. */
export interface ListedUrl {
  index: number;
  line: number;
  url: string;
}

/**
 * A request body that is a list of URLs, read from the stream by the list parser (not JSON): the
 * validation pipe passes it through, the handler that takes it checks each URL.
 */
export class UrlListBody {
  constructor(
    readonly mediaType: UrlListMediaType,
    readonly urls: ListedUrl[],
  ) {}
}

export interface UrlListLimits {
  /** URLs in one body (GLEANER_BATCH_MAX_URLS). */
  maxUrls: number;
  /** Bytes in one body: blank lines count too. */
  maxBytes: number;
}

const invalid = (location: string, message: string) => Errors.validation([{ location, message }], 'The list body has an invalid line.');

/**
 * Reads a URL list body as it streams in, never holding more than the URLs themselves: text/plain has
 * one URL per line (blank lines and `#` comments skipped), application/x-ndjson one JSON value per line,
 * a string or `{"url": "..."}`. Over `maxUrls` URLs is a 422 at `body` as soon as the next URL arrives;
 * over `maxBytes` a 413; a line longer than URL_LIST_MAX_LINE_BYTES, or an ndjson line that is not one
 * of the two shapes, a 422 at `body.lines[<line>]`; bytes that are not UTF-8 a 400.
 */
export async function readUrlListBody(
  stream: AsyncIterable<Buffer | string>,
  mediaType: UrlListMediaType,
  limits: UrlListLimits,
): Promise<UrlListBody> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const urls: ListedUrl[] = [];
  let bytes = 0;
  let line = 0;
  let rest = '';
  const take = (text: string) => {
    line++;
    const trimmed = text.replace(/\r$/, '').trim();
    if (trimmed === '' || (mediaType === 'text/plain' && trimmed.startsWith('#'))) return;
    if (urls.length >= limits.maxUrls) {
      throw Errors.validation(
        [{ location: 'body', message: `must have at most ${limits.maxUrls} URLs` }],
        `The list has more than ${limits.maxUrls} URLs (GLEANER_BATCH_MAX_URLS).`,
      );
    }
    urls.push({ index: urls.length, line, url: mediaType === 'text/plain' ? trimmed : ndjsonUrl(trimmed, line) });
  };
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      if (bytes > limits.maxBytes) {
        throw new AppError('payload-too-large', `The list body is larger than ${limits.maxBytes} bytes.`);
      }
      const text = rest + decoder.decode(buffer, { stream: true });
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      if (Buffer.byteLength(rest) > URL_LIST_MAX_LINE_BYTES)
        throw invalid(`body.lines[${line + 1}]`, `is longer than ${URL_LIST_MAX_LINE_BYTES} bytes`);
      for (const text of lines) {
        if (Buffer.byteLength(text) > URL_LIST_MAX_LINE_BYTES)
          throw invalid(`body.lines[${line + 1}]`, `is longer than ${URL_LIST_MAX_LINE_BYTES} bytes`);
        take(text);
      }
    }
    take(rest + decoder.decode());
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA')
      throw new AppError('bad-request', 'The list body is not valid UTF-8.');
    throw error;
  }
  return new UrlListBody(mediaType, urls);
}

function ndjsonUrl(text: string, line: number): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(`body.lines[${line}]`, 'is not valid JSON');
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const url = (value as { url?: unknown }).url;
    if (keys.length === 1 && typeof url === 'string') return url;
  }
  throw invalid(`body.lines[${line}]`, 'must be a JSON string or {"url": "..."}');
}
