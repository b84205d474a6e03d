import type { JsonSchemaObject, JsonSchemaType } from './types';

/** Whether a value of `null` is already accepted by the schema. */
export function allowsNull(schema: JsonSchemaObject): boolean {
  if (schema.anyOf) return schema.anyOf.some(allowsNull);
  if (schema.enum && !schema.enum.includes(null)) return false;
  if (schema.type === undefined) return true;
  return Array.isArray(schema.type) ? schema.type.includes('null') : schema.type === 'null';
}

/**
 * Gleaner's rule for optional fields, in every form: "may be missing or null". Models must be able
 * to say "not on the page", and OpenAI strict mode can only say it with null.
 */
export function makeNullable(schema: JsonSchemaObject): JsonSchemaObject {
  if (allowsNull(schema)) return schema;
  if (schema.anyOf) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  const next: JsonSchemaObject = { ...schema };
  if (schema.type !== undefined) {
    const types: JsonSchemaType[] = Array.isArray(schema.type) ? [...schema.type] : [schema.type];
    next.type = [...types, 'null'];
  }
  if (schema.enum) next.enum = [...schema.enum, null];
  return next;
}

const KEY_ORDER: Array<keyof JsonSchemaObject> = [
  'type',
  'title',
  'description',
  'format',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'items',
  'anyOf',
  'properties',
  'required',
  'additionalProperties',
];

/** Stable key order: equal schemas serialise (and cache, and render) identically. */
export function canonical(schema: JsonSchemaObject): JsonSchemaObject {
  const out: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (schema[key] !== undefined) out[key] = schema[key];
  return out;
}

/** Build a closed object schema from ordered properties; optional ones become nullable. */
export function objectSchema(
  entries: Array<{ name: string; schema: JsonSchemaObject; required: boolean }>,
  extra: Pick<JsonSchemaObject, 'title' | 'description'> = {},
): JsonSchemaObject {
  const properties: Record<string, JsonSchemaObject> = {};
  const requiredNames = new Set<string>();
  for (const entry of entries) {
    Object.defineProperty(properties, entry.name, {
      value: entry.required ? entry.schema : makeNullable(entry.schema),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    if (entry.required) requiredNames.add(entry.name);
  }
  // Follow the properties' own key order (JS puts integer-like keys first) so equal schemas stay equal.
  const required = Object.keys(properties).filter((name) => requiredNames.has(name));
  return canonical({ type: 'object', ...extra, properties, required, additionalProperties: false });
}
