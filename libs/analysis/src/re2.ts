import { RE2JS } from 're2js';

/** RE2 metacharacters that must be escaped to match literally. */
export function escapeRe2(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/** Compiles with the crawl engine's syntax (RE2); undefined when the pattern is invalid. */
export function compileRe2(pattern: string): RE2JS | undefined {
  try {
    return RE2JS.compile(pattern);
  } catch {
    return undefined;
  }
}

/** True when `pattern` is valid RE2 and matches every sample (full match, as the patterns are anchored). */
export function re2MatchesAll(pattern: string, samples: string[]): boolean {
  const re = compileRe2(pattern);
  return re !== undefined && samples.every((s) => re.matcher(s).find());
}
