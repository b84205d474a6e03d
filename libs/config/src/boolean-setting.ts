/**
 * The one reading of a yes/no setting (docs/operations.md "Boolean settings"): case-insensitive, surrounding
 * spaces ignored. Every boolean variable goes through it, so `TRUE`, `yes` and `1` mean the same everywhere.
 */
export const BOOLEAN_TRUE_WORDS = ['true', 'yes', 'on', '1'] as const;
export const BOOLEAN_FALSE_WORDS = ['false', 'no', 'off', '0'] as const;

/** What a refusal says it takes. */
export const BOOLEAN_WORDS_HINT = 'true, false, yes, no, on, off, 1 or 0 (any case)';

/** `true` / `false`, or `undefined` for a value that is neither (the caller reports it). */
export function parseBooleanSetting(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if ((BOOLEAN_TRUE_WORDS as readonly string[]).includes(word)) return true;
  if ((BOOLEAN_FALSE_WORDS as readonly string[]).includes(word)) return false;
  return undefined;
}
