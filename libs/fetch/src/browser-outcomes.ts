import type { Response } from 'playwright';
import { AppError } from '@app/core';
import type { BotWallVerdict } from './bot-wall-detector';
import { isPdfMediaType, kindFromMediaType, mediaType } from './content-type';
import { fetchError, statusError } from './errors';
import { REFUSED_HEADER } from './guarded-proxy';
import { parseRetryAfter } from './retry-after';

/*
 * What the browser's outcomes mean for a fetch (docs/fetching.md): a navigation's error as a fetch error, and
 * whether a rendered page is one (its document's status, a bot wall, its type, size and redirects). Pure: the
 * renderer (page-renderer.ts) reads the page and calls these.
 */

/** The browser would download the document (a PDF): the caller may read it over plain HTTP instead. */
export class BrowserDownload extends Error {
  constructor(readonly url: string) {
    super(`The browser would download ${url} instead of showing it.`);
    this.name = 'BrowserDownload';
  }
}

/** A navigation's error as a fetch error; `blocked`: the requests the session router refused during it. */
export function navigationError(error: unknown, url: string, blocked: string[]): AppError {
  if (error instanceof AppError) return error;
  const message = (error as Error).message ?? String(error);
  if ((error as Error).name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(message)) {
    return fetchError('timeout', `Rendering ${url} exceeded its deadline.`, { url });
  }
  if (/ERR_BLOCKED_BY_CLIENT/.test(message) && blocked.length > 0) {
    return fetchError('ssrf_blocked', `The navigation was refused by the address guard (${blocked[0]}).`, { url });
  }
  if (/ERR_TUNNEL_CONNECTION_FAILED/.test(message)) {
    return fetchError('ssrf_blocked', `The address guard refused a connection while loading ${url}.`, { url });
  }
  if (/Download is starting|ERR_ABORTED/.test(message)) {
    return fetchError('unsupported_content', `The browser would download ${url} instead of showing it.`, { url });
  }
  if (/ERR_TOO_MANY_REDIRECTS/.test(message)) return fetchError('fetch_error', 'Too many redirects.', { url, retryable: false });
  const code = /net::(ERR_[A-Z_]+)/.exec(message)?.[1] ?? 'navigation failed';
  return fetchError('fetch_error', `Loading ${url} failed: ${code}.`, { url, cause: error });
}

/** A page that crashed its tab (out of memory past the tab's heap cap, or a renderer fault): retrying would crash it again. */
export function tabCrashed(url: string): AppError {
  return fetchError('fetch_error', `The page crashed its browser tab (out of memory or a renderer fault) while loading ${url}.`, {
    url,
    retryable: false,
  });
}

/** `work`, or a timeout error at `deadline` (the work is left to fail on its own when the page closes). */
export async function beforeDeadline<T>(work: Promise<T>, deadline: number, url: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(fetchError('timeout', `The page's script kept the tab busy past the deadline (${url}).`, { url })),
      Math.max(1, deadline - Date.now()),
    );
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function isDownload(error: unknown): boolean {
  return /Download is starting/.test((error as Error)?.message ?? '');
}

/** The URLs a response was redirected from, first to last (the browser followed them itself). */
export function redirectChain(response: Pick<Response, 'request'> | undefined): string[] {
  const chain: string[] = [];
  let request = response?.request().redirectedFrom() ?? null;
  while (request) {
    chain.unshift(request.url());
    request = request.redirectedFrom();
  }
  return chain;
}

export function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw fetchError('invalid_request', `Not a valid URL: ${url}`);
  }
}

/** A rendered page as the renderer read it, after it landed. */
export interface RenderedPage {
  /** The URL asked for. */
  url: string;
  /** The tab's URL now. */
  pageUrl: string;
  /** The last main-frame document's URL, status and headers (none: the browser showed no response). */
  document?: { url: string; status: number; headers: Record<string, string> };
  html: string;
  wall: BotWallVerdict;
  /** Every redirect, the renderer's own and the browser's. */
  redirects: string[];
}

/**
 * Whether a rendered page is a page: throws what it is instead (the guard refused its document, a bot wall, an error
 * status, a PDF or a binary, too large, too many redirects); else its content type and size.
 */
export function checkRendered(
  page: RenderedPage,
  limits: { acceptPdf?: boolean; maxBytes: number; maxRedirects: number },
): { contentType: string; bytes: number } {
  const headers = page.document?.headers ?? {};
  const status = page.document?.status ?? 200;
  if (headers[REFUSED_HEADER]) throw fetchError('ssrf_blocked', headers[REFUSED_HEADER], { url: page.document?.url });
  if (page.wall.blocked) throw fetchError('blocked', `Bot wall detected: ${page.wall.reason}.`, { url: page.pageUrl, status });
  if (status >= 400) throw statusError(status, page.pageUrl, parseRetryAfter(headers['retry-after']));

  const type = mediaType(headers['content-type']) || 'text/html';
  // Chromium shows a PDF in its viewer (or downloads it): its bytes are read over plain HTTP instead.
  if (limits.acceptPdf && isPdfMediaType(type)) throw new BrowserDownload(page.pageUrl);
  if (kindFromMediaType(type) === 'binary')
    throw fetchError('unsupported_content', `Unsupported content type ${type}.`, { url: page.pageUrl, status });
  const bytes = Buffer.byteLength(page.html, 'utf8');
  if (bytes > limits.maxBytes)
    throw fetchError('content_too_large', `The rendered page is larger than ${limits.maxBytes} bytes.`, { url: page.pageUrl });
  if (page.redirects.length > limits.maxRedirects)
    throw fetchError('fetch_error', `Too many redirects (more than ${limits.maxRedirects}).`, { url: page.url, retryable: false });
  return { contentType: type, bytes };
}
