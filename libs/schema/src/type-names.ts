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
