import { jsonrepair } from 'jsonrepair';

/**
 * Gets the JSON value out of a model reply: tolerates code fences and prose around the JSON, and
 * runs a JSON repair pass (trailing commas, single quotes, unquoted keys, cut-off brackets) before
 * giving up. Returns undefined when nothing JSON-like can be recovered.
 */
export function parseModelJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const direct = tryParse(trimmed);
  if (direct !== undefined) return direct;
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(trimmed);
  const candidates = [fenced?.[1], outermostJson(trimmed), trimmed].filter(
    (c): c is string => typeof c === 'string' && c.trim().length > 0,
  );
  for (const candidate of candidates) {
    const parsed = tryParse(candidate.trim());
    if (parsed !== undefined) return parsed;
  }
  for (const candidate of candidates) {
    try {
      const repaired = jsonrepair(candidate.trim());
      const parsed = tryParse(repaired);
      if (parsed !== undefined && typeof parsed === 'object') return parsed;
    } catch {
      continue;
    }
  }
  return undefined;
}

function tryParse(text: string): unknown {
  if (!/^[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The span from the first `{` or `[` to its matching closer (string-aware), or to the end. */
function outermostJson(text: string): string | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') stack.push(ch === '{' ? '}' : ']');
    else if (ch === '}' || ch === ']') {
      stack.pop();
      if (stack.length === 0) return text.slice(start, i + 1);
    }
  }
  return text.slice(start);
}
