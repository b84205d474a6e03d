import { RE2JS } from 're2js';

/** The registrable-ish domain shown on a site: the host, lower-cased, without a leading `www.`. */
export function domainOf(value: string): string {
  return new URL(value).hostname.toLowerCase().replace(/^www\./, '');
}

/**
 * Crawl patterns run on a linear-time engine (RE2 semantics: no backreferences or lookaround), so a
 * hostile pattern cannot hang a worker. Returns a reason when the pattern does not compile.
 */
export function checkPattern(pattern: string): string | null {
  if (pattern.length > 1000) return 'must be at most 1000 characters';
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return `not a valid RE2 regular expression: ${(error as Error).message}`;
  }
}
