import * as http from 'node:http';
import * as https from 'node:https';
import { gunzipSync } from 'node:zlib';
import { HeaderGenerator, type HeaderGeneratorOptions } from 'header-generator';
import { AppError } from '@app/core';
import { AddressGuard, pinnedLookup, type ResolvedAddress } from './address-guard';
import { decodeBody } from './charset';
import {
  defaultMediaType,
  hasPdfSignature,
  isPdfMediaType,
  kindFromMediaType,
  mediaType,
  sniffContent,
  type ContentKind,
} from './content-type';
import { fetchError, statusError } from './errors';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  RedirectStopped,
  type FetchOptions,
  type FetchResult,
} from './fetch-types';
import { cookieHeader, inScope, scopeHostOf, sessionCovers } from './request-control';
import { parseRetryAfter } from './retry-after';
import { isStaleSocketReset, mapRequestError, timeoutError } from './request-errors';
import { ProxyAgents, type TunnelAgents } from './proxy-pool/proxy-agents';
import type { ProxyEndpoint } from './proxy-pool/proxy-pools-config';
import { proxyFailureOf } from './proxy-pool/proxy-tunnel';

export interface StaticFetcherOptions {
  guard?: AddressGuard;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Overrides the generated browser User-Agent (e.g. "GleanerBot/1.0" for polite crawling). */
  userAgent?: string;
  headerGeneratorOptions?: Partial<HeaderGeneratorOptions>;
  /** Sockets kept per origin. */
  maxSocketsPerHost?: number;
}

/** A response read to the end (or to the cap) before status mapping; auto mode inspects it for bot walls. */
export interface RawFetchResult extends FetchResult {
  kind: ContentKind;
  retryAfterSeconds?: number;
}

/** How much of an error page (4xx/5xx) is kept: enough for bot-wall detection. */
const ERROR_BODY_BYTES = 512 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

type GotScrapingModule = typeof import('got-scraping');
let gotModule: Promise<GotScrapingModule> | undefined;
// got-scraping is ESM-only: load it once with a real dynamic import.
function loadGot(): Promise<GotScrapingModule> {
  gotModule ??= import('got-scraping');
  return gotModule;
}

/**
 * Plain HTTP fetch with got-scraping: browser-like headers, manual redirects (every hop through
 * the address guard, connecting to the vetted address), a streamed body cut at maxBytes.
 * HTTP/2 and got-scraping's own header generation are off on purpose: both open an extra TLS
 * connection (ALPN probe) through the system resolver, outside the guard.
 */
/** Browser header sets a fetcher keeps and reuses (browserHeaders). */
const HEADER_SETS = 16;

export class StaticFetcher {
  readonly guard: AddressGuard;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly userAgent?: string;
  private readonly headerGenerator: HeaderGenerator;
  /** Browser-like header sets made so far (at most HEADER_SETS; see browserHeaders). */
  private readonly headerSets: Array<Readonly<Record<string, string>>> = [];
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly proxyAgents: ProxyAgents;

  constructor(options: StaticFetcherOptions = {}) {
    this.guard = options.guard ?? new AddressGuard();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    this.userAgent = options.userAgent;
    this.headerGenerator = new HeaderGenerator({
      browsers: ['chrome', 'firefox', 'edge'],
      operatingSystems: ['windows', 'macos', 'linux'],
      devices: ['desktop'],
      locales: ['en-US', 'en'],
      ...options.headerGeneratorOptions,
    });
    const maxSockets = options.maxSocketsPerHost ?? 64;
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets });
    this.proxyAgents = new ProxyAgents(this.timeoutMs, maxSockets);
  }

  /**
   * Loads got-scraping and makes one set of headers now, so the first page of the process does not wait
   * for them (~200 ms on the development machine: the first crawl's first fetch waited that long).
   */
  async warmUp(): Promise<void> {
    await loadGot();
    this.requestHeaders(undefined, undefined);
  }

  /** Fetches a page; any 4xx/5xx, unsupported type or limit breach is thrown as AppError. */
  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const raw = await this.fetchRaw(url, options);
    if (raw.status >= 400) throw statusError(raw.status, raw.url, raw.retryAfterSeconds);
    const { kind: _kind, retryAfterSeconds: _ra, ...result } = raw;
    return result;
  }

  /** Like fetch() but returns 4xx/5xx responses (with up to 512 KiB of body) instead of throwing. */
  async fetchRaw(url: string, options: FetchOptions = {}): Promise<RawFetchResult> {
    // Loading got-scraping (once per process, seconds on a busy machine) is not the site's time.
    const { gotScraping } = await loadGot();
    const started = Date.now();
    const deadline = started + (options.timeoutMs ?? this.timeoutMs);
    const maxBytes = options.maxBytes ?? this.maxBytes;
    const headers = this.requestHeaders(options.headers, options.userAgent);
    const scopeHost = scopeHostOf(options.scoped, url);
    const redirects: string[] = [];
    const seen = new Set<string>();
    let current = parseUrl(url);

    for (;;) {
      seen.add(current.href);
      const addresses = await withDeadline(this.guard.checkUrl(current), deadline, current.href);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw timeoutError(current.href);
      // The caller's headers and cookies go to their host only, an auth profile's session to the profile's hosts
      // only (the caller's cookie wins by name): a hop to another host goes without them.
      const scoped = scopeHost !== undefined && inScope(current, scopeHost) ? options.scoped : undefined;
      const session = options.session && sessionCovers(options.session, current) ? options.session.cookies : undefined;
      const hopHeaders = scoped || session ? withCaller(headers, scoped?.headers ?? {}, { ...session, ...scoped?.cookies }) : headers;
      const hopOptions: HopOptions = {
        headers: hopHeaders,
        timeoutMs: remaining,
        maxBytes,
        signal: options.signal,
        acceptGzip: options.acceptGzip === true,
        acceptPdf: options.acceptPdf === true,
        ...(options.form && redirects.length === 0 ? { form: options.form } : {}),
        ...(options.onSetCookie ? { onSetCookie: options.onSetCookie } : {}),
      };
      // A hop that carries a session goes through the session's own proxy of the pool (ProxyPool.pick's key).
      const proxyKey = session ? options.session?.proxyKey : undefined;
      const hop = options.proxy
        ? await this.requestProxied(gotScraping, current, addresses, hopOptions, options.proxy, proxyKey)
        : await this.requestOnce(gotScraping, current, addresses, hopOptions);
      if (hop.redirectTo === undefined) {
        return { ...hop.result, redirects, durationMs: Date.now() - started };
      }
      redirects.push(current.href);
      const next = resolveRedirect(hop.redirectTo, current);
      if (seen.has(next.href)) throw fetchError('fetch_error', `Redirect loop at ${next.href}.`, { url, retryable: false });
      if (redirects.length > this.maxRedirects) {
        throw fetchError('fetch_error', `Too many redirects (more than ${this.maxRedirects}).`, { url, retryable: false });
      }
      const stop = options.beforeRedirect ? await options.beforeRedirect(next.href) : null;
      if (stop) throw new RedirectStopped(stop, next.href);
      current = next;
    }
  }

  /** Releases keep-alive sockets. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    this.proxyAgents.close();
  }

  /**
   * One hop through the request's proxy pool: the pool picks a proxy for the host (for a session's `key`, the
   * session's proxy), the tunnel goes to the vetted address; a proxy that fails rests (ProxyPool) and the hop is
   * tried on the next, until every proxy was tried.
   */
  private async requestProxied(
    gotScraping: GotScrapingModule['gotScraping'],
    url: URL,
    addresses: ResolvedAddress[],
    hop: HopOptions,
    pool: NonNullable<FetchOptions['proxy']>,
    key: string | undefined,
  ): ReturnType<StaticFetcher['requestOnce']> {
    const tried = new Set<ProxyEndpoint>();
    for (;;) {
      const proxy = pool.pick(url.hostname, tried, key);
      if (!proxy) throw fetchError('fetch_error', `Every proxy of the pool ${pool.name} failed for ${url.href}.`, { url: url.href });
      tried.add(proxy);
      try {
        const result = await this.requestOnce(gotScraping, url, addresses, hop, this.proxyAgents.for(proxy));
        pool.succeeded(proxy);
        return result;
      } catch (error) {
        const failure = proxyFailureOf(error);
        if (!failure) throw error;
        pool.failed(failure.proxy);
      }
    }
  }

  /**
   * One browser's headers. Sampling header-generator's network costs ~0.3 ms of the event loop, the most
   * expensive step of a fetch to a local site: the first HEADER_SETS requests each make a set, later ones
   * pick one of them at random (a crawl still shows several browsers, as Crawlee's session pool does).
   */
  private browserHeaders(): Readonly<Record<string, string>> {
    if (this.headerSets.length >= HEADER_SETS) return this.headerSets[Math.floor(Math.random() * this.headerSets.length)];
    const generated = this.headerGenerator.getHeaders({ httpVersion: '1' }) as Record<string, string>;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(generated)) if (k.toLowerCase() !== 'connection') headers[k] = v;
    // header-generator's pick for a top-level navigation is occasionally 'same-site'; a typed URL is 'none'.
    for (const k of Object.keys(headers)) {
      if (k.toLowerCase() === 'sec-fetch-site') headers[k] = 'none';
      // got decompresses gzip/deflate/br; do not invite zstd.
      if (k.toLowerCase() === 'accept-encoding') headers[k] = 'gzip, deflate, br';
    }
    this.headerSets.push(headers);
    return headers;
  }

  private requestHeaders(extra: Record<string, string> | undefined, userAgent: string | undefined): Record<string, string> {
    const headers = { ...this.browserHeaders() };
    const agent = userAgent ?? this.userAgent;
    if (agent) setHeader(headers, 'User-Agent', agent);
    // Caller headers win, whatever their case.
    for (const [k, v] of Object.entries(extra ?? {})) setHeader(headers, k, v);
    return headers;
  }

  private async requestOnce(
    gotScraping: GotScrapingModule['gotScraping'],
    url: URL,
    addresses: ResolvedAddress[],
    hop: HopOptions,
    agents: TunnelAgents = { http: this.httpAgent, https: this.httpsAgent },
    staleRetries = 0,
  ): Promise<{ redirectTo?: string; result: Omit<RawFetchResult, 'redirects' | 'durationMs'> }> {
    const { headers, timeoutMs, maxBytes, signal, acceptGzip, acceptPdf, form } = hop;
    const post = form
      ? { method: 'POST', body: new URLSearchParams(form).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }
      : undefined;
    const stream = gotScraping.stream(url.href, {
      ...(post ? { method: post.method, body: post.body } : {}),
      followRedirect: false,
      http2: false,
      useHeaderGenerator: false,
      // Host first, as browsers send it (Node would append it last).
      headers: { Host: url.host, ...headers, ...post?.headers },
      dnsLookup: pinnedLookup(addresses),
      // Plain agents: got-scraping's TransformHeadersAgent adds a Content-Length: 0 to GETs, which browsers never send.
      agent: agents,
      timeout: { request: timeoutMs },
      retry: { limit: 0 },
      throwHttpErrors: false,
      decompress: true,
      signal,
    } as never);

    let reusedSocket = false;
    stream.once('request', (request: http.ClientRequest) => {
      reusedSocket = request.reusedSocket;
    });
    let response: http.IncomingMessage & { url?: string };
    try {
      response = await new Promise<http.IncomingMessage & { url?: string }>((resolve, reject) => {
        stream.once('response', resolve);
        stream.once('error', reject);
      });
    } catch (error) {
      stream.destroy();
      // A kept-alive connection the server closed while idle is reset when reused: the request never reached the
      // server, so a GET is sent again on a new connection (browsers and undici do the same), a bounded number of
      // times. Otherwise the race shows as a fetch_error on a page that answers.
      if (reusedSocket && !hop.form && staleRetries < STALE_SOCKET_RETRIES && isStaleSocketReset(error)) {
        return this.requestOnce(gotScraping, url, addresses, hop, agents, staleRetries + 1);
      }
      throw mapRequestError(error, url.href);
    }
    try {
      const status = response.statusCode ?? 0;
      const flatHeaders = flattenHeaders(response.headers);
      const setCookie = response.headers['set-cookie'];
      if (hop.onSetCookie && setCookie && setCookie.length > 0) hop.onSetCookie(url, setCookie);
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        stream.destroy();
        return { redirectTo: location, result: undefined as never };
      }
      const declaredType = mediaType(flatHeaders['content-type']);
      const gzipDeclared = acceptGzip && /^application\/(x-)?gzip$/.test(declaredType);
      const pdfDeclared = acceptPdf && isPdfMediaType(declaredType);
      const declaredKind = gzipDeclared || pdfDeclared ? 'unknown' : kindFromMediaType(declaredType);
      const isError = status >= 400;
      if (!isError && declaredKind === 'binary') {
        stream.destroy();
        throw fetchError('unsupported_content', `Unsupported content type ${declaredType}.`, { url: url.href, status });
      }
      const limit = isError ? Math.min(maxBytes, ERROR_BODY_BYTES) : maxBytes;
      const declaredLength = Number(flatHeaders['content-length']);
      if (!isError && !flatHeaders['content-encoding'] && Number.isFinite(declaredLength) && declaredLength > maxBytes) {
        stream.destroy();
        throw tooLarge(url.href, maxBytes);
      }

      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > limit) {
          if (isError) {
            chunks.push(chunk.subarray(0, chunk.length - (total - limit)));
            total = limit;
            break;
          }
          throw tooLarge(url.href, maxBytes);
        }
        chunks.push(chunk);
      }
      let body = Buffer.concat(chunks, total);
      if (acceptGzip && !isError && body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) {
        try {
          body = gunzipSync(body, { maxOutputLength: maxBytes });
          total = body.length;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(url.href, maxBytes);
          throw fetchError('fetch_error', `The gzip body of ${url.href} is corrupt.`, { url: url.href, status, retryable: false });
        }
      }
      // A PDF, declared or not (servers label them octet-stream, or even text/html), is kept as bytes.
      if (acceptPdf && !isError && hasPdfSignature(body.subarray(0, 1024))) {
        return { result: pdfResult(url, status, flatHeaders, body) };
      }
      if (pdfDeclared && !isError)
        throw fetchError('unsupported_content', 'The body is labelled a PDF but is not one.', { url: url.href, status });
      let kind: ContentKind;
      const sniffed = sniffContent(body.subarray(0, 2048));
      if (declaredKind === 'unknown' || declaredKind === 'binary') {
        if (sniffed === 'binary' && !isError)
          throw fetchError('unsupported_content', 'The body is binary content.', { url: url.href, status });
        kind = sniffed === 'binary' ? 'text' : sniffed;
      } else {
        // A PNG/zip served as text/html is still refused.
        if (sniffed === 'binary' && body.length > 0 && !isError) {
          throw fetchError('unsupported_content', `The body is binary although labelled ${declaredType}.`, { url: url.href, status });
        }
        kind = declaredKind;
      }
      const decoded = decodeBody(body, flatHeaders['content-type']);
      return {
        result: {
          url: url.href,
          status,
          headers: flatHeaders,
          contentType: declaredKind === 'unknown' || declaredKind === 'binary' ? defaultMediaType(kind) : declaredType,
          charset: decoded.charset,
          html: decoded.text,
          raw: body,
          bytes: total,
          mode: 'static',
          kind,
          retryAfterSeconds: parseRetryAfter(flatHeaders['retry-after']),
        },
      };
    } catch (error) {
      throw mapRequestError(error, url.href);
    } finally {
      stream.destroy();
    }
  }
}

interface HopOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal | undefined;
  acceptGzip: boolean;
  acceptPdf: boolean;
  /** This hop POSTs the form (a login's first request). */
  form?: Record<string, string>;
  onSetCookie?: (url: URL, setCookie: string[]) => void;
}

/** Sets a header, replacing one of the same name in any case. */
function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
  headers[name] = value;
}

/** The hop's headers plus the caller's headers and cookies for this host (these win over generated ones). */
function withCaller(headers: Record<string, string>, own: Record<string, string>, cookies: Record<string, string>): Record<string, string> {
  const out = { ...headers };
  for (const [name, value] of Object.entries(own)) setHeader(out, name, value);
  if (Object.keys(cookies).length > 0) setHeader(out, 'Cookie', cookieHeader(cookies));
  return out;
}

function pdfResult(
  url: URL,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): Omit<RawFetchResult, 'redirects' | 'durationMs'> {
  return {
    url: url.href,
    status,
    headers,
    contentType: 'application/pdf',
    charset: 'binary',
    html: '',
    body,
    bytes: body.length,
    mode: 'static',
    kind: 'pdf',
    retryAfterSeconds: parseRetryAfter(headers['retry-after']),
  };
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw fetchError('invalid_request', `Not a valid URL: ${url}`);
  }
}

function resolveRedirect(location: string, base: URL): URL {
  let next: URL;
  try {
    next = new URL(location, base);
  } catch {
    throw fetchError('fetch_error', `Invalid redirect location: ${location}`, { retryable: false });
  }
  next.hash = '';
  return next;
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function tooLarge(url: string, maxBytes: number): AppError {
  return fetchError('content_too_large', `The page is larger than ${maxBytes} bytes.`, { url });
}

/** How many times one hop is sent again after a reused keep-alive connection was found closed. */
const STALE_SOCKET_RETRIES = 2;

async function withDeadline<T>(promise: Promise<T>, deadline: number, url: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(url)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
