import { AppError, type FieldError } from '@app/core';

/** Limits every JSON request body is held to (documented in docs/api.md, "Request bodies"). */
export const JSON_BODY_LIMITS = {
  /** Objects and arrays nested deeper than this are refused. */
  maxDepth: 32,
  /** Longest array anywhere in a body. */
  maxArrayLength: 10_000,
} as const;

function refuse(detail: string, location?: string, message = detail): AppError {
  const errors: FieldError[] | undefined = location ? [{ location, message }] : undefined;
  return new AppError('bad-request', detail, { detail, errors });
}

/**
 * Parses a JSON request body strictly: valid JSON (RFC 8259), no duplicate keys at any level (JSON.parse
 * would keep the last one silently), valid Unicode (no lone surrogates, in keys or values), at most
 * `maxDepth` levels of nesting and `maxArrayLength` items per array. Anything else is a 400
 * `bad-request` problem pointing at the offending place; nothing reaches a handler half-parsed.
 * `__proto__` keys stay plain data (JSON.parse defines them as own properties); the validation pipe
 * refuses them where the document allows no such field.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw refuse('The body is empty but Content-Type says JSON.');
  // Depth first, on the text: refuses absurd nesting before anything recursive touches it.
  scanStructure(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Where it broke, in JSON.parse's words ("… in JSON at position 1 (line 1 column 2)", "Unexpected token 'b'"),
    // without the excerpt of the body V8 quotes (it may hold a key).
    const why = error instanceof SyntaxError ? error.message.replace(/, ".*" is not valid JSON$/s, '') : 'unexpected input';
    throw refuse('The body is not valid JSON.', 'body', `is not valid JSON: ${why}`);
  }
  checkValues(value, 'body');
  return value;
}

type Frame = { kind: 'object'; keys: Set<string>; key: string; expectKey: boolean } | { kind: 'array'; index: number };

/** One linear pass over the text: nesting depth, array lengths and duplicate keys. Invalid JSON is left to JSON.parse. */
function scanStructure(text: string): void {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.expectKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, end + 1)) as string;
        } catch {
          return; // malformed: JSON.parse reports it
        }
        if (top.keys.has(key)) throw refuse(`Duplicate key ${JSON.stringify(key)}.`, pathOf(stack, key));
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (ch === '{' || ch === '[') {
      if (stack.length >= JSON_BODY_LIMITS.maxDepth) {
        throw refuse(`The body is nested deeper than ${JSON_BODY_LIMITS.maxDepth} levels.`, pathOf(stack));
      }
      stack.push(ch === '{' ? { kind: 'object', keys: new Set(), key: '', expectKey: true } : { kind: 'array', index: 0 });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    } else if (ch === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') top.expectKey = true;
      else if (top) {
        top.index++;
        if (top.index >= JSON_BODY_LIMITS.maxArrayLength) {
          throw refuse(`An array has more than ${JSON_BODY_LIMITS.maxArrayLength} items.`, pathOf(stack.slice(0, -1)));
        }
      }
    }
  }
}

function pathOf(stack: Frame[], lastKey?: string): string {
  let path = 'body';
  const frames = lastKey === undefined ? stack : stack.slice(0, -1);
  for (const frame of frames) path = frame.kind === 'object' ? keyPath(path, frame.key) : `${path}[${frame.index}]`;
  return lastKey === undefined ? path : keyPath(path, lastKey);
}

function keyPath(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** In u-mode a surrogate pair is one code point; only an unpaired half matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Every string and key must be well-formed Unicode (a lone surrogate is not text). Depth is already bounded. */
function checkValues(value: unknown, path: string): void {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) throw refuse('A string contains a lone surrogate (not valid Unicode).', path);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => checkValues(item, `${path}[${i}]`));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) throw refuse('A key contains a lone surrogate (not valid Unicode).', path);
      checkValues(item, keyPath(path, key));
    }
  }
}
