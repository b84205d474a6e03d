import type { Tiktoken } from 'js-tiktoken';

let encoder: Tiktoken | undefined;

/** cl100k_base, loaded on first use (~300 ms): a close enough count for every provider's budget. */
function cl100k(): Tiktoken {
  if (!encoder) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { getEncoding } = require('js-tiktoken') as typeof import('js-tiktoken');
    encoder = getEncoding('cl100k_base');
  }
  return encoder;
}

export function countTokens(text: string): number {
  return cl100k().encode(text).length;
}

/**
 * Cuts `text` to at most `maxTokens` tokens by real token counts. A token is at least one
 * character, so text no longer than the budget in characters is returned without encoding.
 */
export function fitToTokens(
  text: string,
  maxTokens: number,
): { text: string; tokens: number | null; truncated: boolean; totalTokens: number | null } {
  if (maxTokens <= 0) return { text: '', tokens: 0, truncated: text.length > 0, totalTokens: null };
  if (text.length <= maxTokens) return { text, tokens: null, truncated: false, totalTokens: null };
  const tokens = cl100k().encode(text);
  if (tokens.length <= maxTokens) return { text, tokens: tokens.length, truncated: false, totalTokens: tokens.length };
  return { text: cl100k().decode(tokens.slice(0, maxTokens)), tokens: maxTokens, truncated: true, totalTokens: tokens.length };
}
