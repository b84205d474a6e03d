import { RE2JS } from 're2js';
import type { RegExpEngine } from 'ajv/dist/types';

/**
 * `pattern` runs through RE2 (linear time) both when checked here and when ajv validates replies,
 * so a hostile pattern cannot cause catastrophic backtracking (ReDoS). RE2 rejects lookaround and
 * backreferences; that is the documented price.
 */
export function checkPattern(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    new RegExp(pattern, 'u'); // providers use ECMAScript-ish syntax; it must parse there too
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `pattern is not a supported regular expression (RE2 syntax, no lookaround or backreferences): ${reason}`;
  }
}

/** ajv `code.regExp` engine backed by re2js; JSON Schema patterns are unanchored searches. */
export const re2Engine: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    // ajv keys compiled patterns by toString(): it must be unique per pattern, or patterns get mixed up.
    return { test: (input: string) => compiled.test(input), toString: () => `re2:${pattern}` };
  },
  { code: 're2js' },
);
