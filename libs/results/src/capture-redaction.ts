/**
 * Debug captures hold what was sent to the model (prompt, page content) and never any credential:
 * no capture field carries a key (BYOK `llm_config.api_key`, stored or server-held provider keys).
 * As a second line of defence, well-known key formats, bearer tokens and the literal values the
 * caller names in `redact` are replaced by `[redacted]` in every string field.
 */
const KEY_PATTERNS: RegExp[] = [
  /glk_[A-Za-z0-9]{40}/g, // Gleaner API keys
  /\bsk-[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic (sk-ant-), OpenRouter (sk-or-) keys
  /\bBearer\s+[A-Za-z0-9._~+/=-]{16,}/gi,
];

export const REDACTED = '[redacted]';

export function redactSecrets(text: string, literals: readonly string[] = []): string {
  let out = text;
  for (const literal of literals) {
    if (literal && literal.length >= 4) out = out.split(literal).join(REDACTED);
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}
