import { parseCookieHeader } from '@app/fetch';
import type { CrawlOptionsLayer } from './dto/crawl-options.dto';
import type { FetchSecretMaps } from './saved-fetch-secrets';

/**
 * A request's options layer over the headers and cookies a saved site or monitor keeps (docs/scrape.md
 * "Fetch control in crawls and batches"), merged name by name: a request's header replaces the saved
 * header of the same name in any case, a request's cookie (in `cookies` or in a `Cookie` header) the
 * saved cookie of the same name; every other saved one is kept. A request's `User-Agent` header is its
 * `user_agent`, so it wins over a saved `user_agent` as the field does (both in one request stay a 422).
 */
export function withSavedSecrets(request: CrawlOptionsLayer | undefined, saved: FetchSecretMaps | null): CrawlOptionsLayer {
  const layer: CrawlOptionsLayer = { ...request };
  const headers = { ...(request?.headers ?? {}) };
  const agentHeader = Object.keys(headers).find((name) => name.toLowerCase() === 'user-agent');
  if (agentHeader !== undefined && (request?.user_agent === undefined || request.user_agent === null)) {
    layer.user_agent = headers[agentHeader];
    delete headers[agentHeader];
  }
  const headerNames = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const cookieNames = new Set(Object.keys(request?.cookies ?? {}));
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() === 'cookie') for (const cookie of Object.keys(parseCookieHeader(value))) cookieNames.add(cookie);
  const savedHeaders = Object.entries(saved?.headers ?? {}).filter(([name]) => !headerNames.has(name.toLowerCase()));
  const savedCookies = Object.entries(saved?.cookies ?? {}).filter(([name]) => !cookieNames.has(name));
  const mergedHeaders = { ...Object.fromEntries(savedHeaders), ...headers };
  const mergedCookies = { ...Object.fromEntries(savedCookies), ...(request?.cookies ?? {}) };
  layer.headers = Object.keys(mergedHeaders).length > 0 ? mergedHeaders : null;
  layer.cookies = Object.keys(mergedCookies).length > 0 ? mergedCookies : null;
  return layer;
}
