import type { JsonSchemaObject } from './types';

/** Type names of the shorthand and field-list forms. */
export const TYPE_NAMES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'date', 'datetime', 'url', 'email'] as const;
export type TypeName = (typeof TYPE_NAMES)[number];

/** Spellings people paste from JSON Schema or code; accepted quietly. */
const ALIASES: Record<string, TypeName> = { 'date-time': 'datetime', uri: 'url', int: 'integer', bool: 'boolean' };

/** Case-insensitive lookup of a type name or alias. */
export function resolveTypeName(raw: string): TypeName | undefined {
  const name = raw.trim().toLowerCase();
  if ((TYPE_NAMES as readonly string[]).includes(name)) return name as TypeName;
  return Object.prototype.hasOwnProperty.call(ALIASES, name) ? ALIASES[name] : undefined;
}

/** Schema of a scalar type name; object/array need a structure and are built by the callers. */
export function scalarSchema(name: Exclude<TypeName, 'object' | 'array'>): JsonSchemaObject {
  switch (name) {
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'url':
      return { type: 'string', format: 'uri' };
    case 'email':
      return { type: 'string', format: 'email' };
    default:
      return { type: name };
  }
}

export function isContainer(name: TypeName): name is 'object' | 'array' {
  return name === 'object' || name === 'array';
}

export interface ShorthandScalar {
  /** undefined: the whole string was a description (typed string). */
  type?: TypeName;
  required: boolean;
  description?: string;
}

const TYPED = /^\s*([A-Za-z-]+)\s*([?!])?\s*(?::\s*([\s\S]*))?$/;

/**
 * `"number"`, `"number?"`, `"number!"`, `"date: when it was published"`; anything else is a
 * description of a string field.
 */
export function parseShorthandString(value: string): ShorthandScalar {
  const match = TYPED.exec(value);
  const type = match ? resolveTypeName(match[1]) : undefined;
  if (match && type) {
    const description = match[3]?.trim();
    return { type, required: match[2] === '!', description: description ? description : undefined };
  }
  const description = value.trim();
  return { required: false, description: description ? description : undefined };
}

/**
 * The type name a one-word description was probably meant to be (`"numbr"` → number, `"strng"` → string), or
 * undefined. The value stays a description (the schema language's rule: a string that is not a type name
 * describes a text field); the caller warns. Close means one edit (a transposition counts as one) for words
 * of up to five letters, two for longer ones, so short real words ("name", "title") are not taken for types.
 */
export function misspelledTypeName(value: string): TypeName | undefined {
  const word = value.trim().toLowerCase();
  if (!/^[a-z-]{3,16}$/.test(word) || resolveTypeName(word)) return undefined;
  const limit = word.length <= 5 ? 1 : 2;
  let best: { name: TypeName; distance: number } | undefined;
  for (const [spelling, name] of [...TYPE_NAMES.map((n) => [n, n] as const), ...Object.entries(ALIASES)]) {
    const distance = editDistance(word, spelling);
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
