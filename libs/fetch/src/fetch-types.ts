import type { ProxyPool } from './proxy-pool/proxy-pool';
import type { ScopedRequestData, ScreenshotKind, SessionCookies, WaitFor } from './request-control';

/** How a page is fetched: `static` (HTTP only), `dynamic` (the browser), `auto` (static, escalating to the browser when the page needs it). */
export const FETCH_MODES = ['auto', 'static', 'dynamic'] as const;
export type FetchMode = (typeof FETCH_MODES)[number];
export type RenderMode = 'static' | 'dynamic';

/** What every fetcher returns: the final page as decoded text plus how it was obtained. */
export interface FetchResult {
  /** Final URL after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Media type without parameters (text/html, application/json, ...). */
  contentType: string;
  charset: string;
  /** The decoded body (HTML for pages; the raw text for JSON/XML/text; '' for a PDF). */
  html: string;
  /** The body's bytes, for documents that are not text (`application/pdf`, with `acceptPdf`). */
  body?: Buffer;
  /**
   * Text bodies: the bytes as received (after content decoding, before charset decoding), kept for the
   * page archive. Static fetches always; browser fetches with `keepRaw`, when the browser kept them.
   */
  raw?: Buffer;
  /** Body size in bytes as received (after decompression). */
  bytes: number;
  /** Every URL that answered with a redirect, in order (the first is the requested URL). */
  redirects: string[];
  durationMs: number;
  mode: RenderMode;
  /** Set by auto mode when it escalated to the browser, with the detector's reason. */
  escalation?: { from: 'static'; reason: string };
  /** Browser only: sub-requests the address guard refused. */
  blockedRequests?: string[];
  /** Browser only, when asked for (`screenshot`): a PNG of the page as rendered. */
  screenshot?: Buffer;
}

export interface FetchOptions {
  /** Deadline for the whole fetch including redirects (static) or navigation + settle (dynamic). */
  timeoutMs?: number;
  /** Body size cap; larger bodies fail with content_too_large. */
  maxBytes?: number;
  /** Extra request headers of Gleaner's own (robots.txt's User-Agent), sent on every hop. */
  headers?: Record<string, string>;
  /** The caller's headers and cookies: sent only to their host, never across a redirect to another (request-control.ts). */
  scoped?: ScopedRequestData;
  /** An auth profile's session: cookies for the profile's hosts only, under the caller's own (request-control.ts). */
  session?: SessionCookies;
  /** Static only: the first request POSTs this form (application/x-www-form-urlencoded); redirects are followed with GET. A login's post. */
  form?: Record<string, string>;
  /** Static only: told every hop's Set-Cookie headers (a login collecting its session). */
  onSetCookie?: (url: URL, setCookie: string[]) => void;
  /** Replaces the generated User-Agent on every request of the fetch. */
  userAgent?: string;
  /** Browser only: what to wait for before the page is read (auto mode then renders). */
  waitFor?: WaitFor;
  /** Browser only: take a PNG screenshot (auto mode then renders). */
  screenshot?: ScreenshotKind;
  /** Browser only: also read the document's own response bytes (`raw`), for the page archive. */
  keepRaw?: boolean;
  /** Read `application/pdf` bodies (as `body` bytes) instead of failing with unsupported_content. */
  acceptPdf?: boolean;
  signal?: AbortSignal;
  /** The operator's proxy pool the fetch goes through (docs/proxies.md); absent: direct. */
  proxy?: ProxyPool;
  /** Static only: a gzip body (sitemap.xml.gz, served gzipped without Content-Encoding) is decompressed (within maxBytes) and read as text. */
  acceptGzip?: boolean;
  /**
   * Asked before each redirect hop is followed, with the absolute next URL. Returning a reason stops the
   * fetch there with a `RedirectStopped` error (a crawl's off-site or already-fetched target, an auth
   * profile's logout URL), before any request goes to that URL. Static fetches ask it for every hop; the
   * browser for the main-frame redirects it hands to the renderer: every one of a fetch that carries an auth
   * profile's `session` (its navigations then go one hop at a time), and those of requests that carried the
   * caller's scoped headers. Other rendered pages follow redirects themselves (their caller judges the final URL).
   */
  beforeRedirect?: (next: string) => Promise<string | null> | string | null;
}

/** A redirect a caller chose not to follow (see FetchOptions.beforeRedirect). */
export class RedirectStopped extends Error {
  constructor(
    readonly reason: string,
    readonly next: string,
    /** What stopped it, when its caller needs to tell (`logout_link`: an auth profile's logout URL). */
    readonly kind?: 'logout_link',
  ) {
    super(`redirect to ${next} not followed: ${reason}`);
    this.name = 'RedirectStopped';
  }
}

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 10;
