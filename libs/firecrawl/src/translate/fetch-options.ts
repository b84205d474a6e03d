import { optionNotSupported } from '../wire/errors';
import type { ScrapeOptions } from '../wire/scrape-options';

/** Gleaner's fetch deadline range (docs/scrape.md `timeout_ms`); Firecrawl's `timeout` is clamped into it. */
export const MIN_TIMEOUT_MS = 1000;
export const MAX_TIMEOUT_MS = 120_000;
/** Gleaner's longest `wait_for.ms`. */
export const MAX_WAIT_MS = 30_000;

/** The Gleaner fields of a page's fetch (POST /scrape's top level, or a crawl's options). */
export interface GleanerFetchFields {
  only_main_content?: boolean;
  timeout_ms?: number;
  wait_for?: { ms: number };
  headers?: Record<string, string>;
  include_tags?: string[];
  exclude_tags?: string[];
}

/**
 * Refuses what would change the page and that Gleaner cannot do, each by its Firecrawl name (docs/firecrawl.md
 * "Options"): browser actions, a stealth or enhanced proxy, a mobile viewport, a location, PII redaction,
 * parsers other than the PDF reader. `proxy: basic|auto` is the direct fetch (there are no proxy pools
 * yet: it will be the default pool once they exist). The rest (`blockAds`, `storeInCache`, `skipTlsVerification`,
 * `removeBase64Images`, `fastMode`, `zeroDataRetention`, `minAge`, ...) is ignored.
 */
export function refuseUnsupported(options: ScrapeOptions, at = ''): void {
  const where = (name: string) => `${at}${name}`;
  if (options.actions && options.actions.length > 0)
    throw optionNotSupported(where('actions'), 'browser actions are not run (wait with waitFor)');
  if (options.proxy !== undefined && !['basic', 'auto'].includes(options.proxy))
    throw optionNotSupported(where('proxy'), `proxy '${options.proxy}' (only basic and auto: the direct fetch)`);
  if (options.mobile === true) throw optionNotSupported(where('mobile'), 'no mobile emulation');
  if (options.location && Object.keys(options.location).length > 0) throw optionNotSupported(where('location'), 'no geolocated fetches');
  if (options.redactPII !== undefined && options.redactPII !== false) throw optionNotSupported(where('redactPII'), 'no PII redaction');
  for (const [index, parser] of (options.parsers ?? []).entries()) {
    const type = typeof parser === 'string' ? parser : parser.type;
    if (type !== 'pdf')
      throw optionNotSupported(where(`parsers[${index}]`), `the parser '${type}' (PDFs are always read; there is no other parser)`);
  }
}

/**
 * Tag filters shape the formats' content (Gleaner's `include_tags`, `exclude_tags`): a schema extraction (an
 * extract, a monitor's fields) reads the page as the model does, without them (docs/firecrawl.md "Options").
 */
export function refuseTagFilters(options: ScrapeOptions, at: string, what: string): void {
  for (const name of ['includeTags', 'excludeTags'] as const)
    if (options[name] && options[name].length > 0) throw optionNotSupported(`${at}${name}`, `tag filters in ${what}`);
}

/** Whether the options filter the content by tags. */
export function hasTagFilters(options: ScrapeOptions): boolean {
  return Boolean(options.includeTags?.length || options.excludeTags?.length);
}

/** Firecrawl's fetch options as Gleaner's (Firecrawl's `onlyMainContent` defaults to true, as Gleaner's does). */
export function fetchFields(options: ScrapeOptions): GleanerFetchFields {
  const fields: GleanerFetchFields = {};
  if (options.onlyMainContent !== undefined) fields.only_main_content = options.onlyMainContent;
  if (options.timeout !== undefined) fields.timeout_ms = Math.min(MAX_TIMEOUT_MS, Math.max(MIN_TIMEOUT_MS, options.timeout));
  if (options.waitFor !== undefined && options.waitFor > 0) fields.wait_for = { ms: Math.min(MAX_WAIT_MS, options.waitFor) };
  if (options.headers && Object.keys(options.headers).length > 0) fields.headers = options.headers;
  if (options.includeTags?.length) fields.include_tags = options.includeTags;
  if (options.excludeTags?.length) fields.exclude_tags = options.excludeTags;
  return fields;
}
