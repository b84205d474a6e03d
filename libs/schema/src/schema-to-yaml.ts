import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'yaml';
import { parseSchema } from './parse-schema';
import { parseShorthandString } from './type-names';
import type { JsonSchemaObject } from './types';

/**
 * Render a normalised schema as YAML for saving and showing: the most compact form that parses
 * back to exactly the same schema (shorthand, else field list, else JSON Schema).
 */
export function schemaToYaml(schema: JsonSchemaObject): string {
  for (const candidate of [toShorthand(schema), toFieldList(schema)]) {
    if (candidate !== undefined && roundTrips(candidate, schema)) return dump(candidate);
  }
  return dump(schema);
}

function dump(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

function roundTrips(candidate: unknown, schema: JsonSchemaObject): boolean {
  try {
    return isDeepStrictEqual(parseSchema(dump(candidate)).jsonSchema, schema);
  } catch {
    return false;
  }
}

/** Reverse of the scalar type names (nullable variants map to the same name). */
function typeName(schema: JsonSchemaObject): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  if (type.length !== 1 || schema.enum || schema.anyOf) return undefined;
  const formats: Record<string, string> = { date: 'date', 'date-time': 'datetime', uri: 'url', email: 'email' };
  if (schema.format) return type[0] === 'string' ? formats[schema.format] : undefined;
  return type[0];
}

// Best-effort; roundTrips() decides whether the result is faithful.
function toShorthand(schema: JsonSchemaObject): unknown {
  if (schema.title || schema.description) return undefined;
  return shorthandObject(schema);
}

function shorthandObject(schema: JsonSchemaObject): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const value = shorthandValue(property, required.has(name));
    if (value === undefined) return undefined;
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function shorthandValue(schema: JsonSchemaObject, required: boolean): unknown {
  const base = typeName(schema);
  if (base === 'object') return required || schema.description ? undefined : shorthandObject(schema);
  if (base === 'array') {
    if (required || schema.description || !schema.items) return undefined;
    const item = shorthandValue(schema.items, false);
    return item === undefined ? undefined : [item];
  }
  if (!base) return undefined;
  const marker = required ? '!' : '';
  const description = schema.description;
  if (!description) return `${base}${marker}`;
  // A bare description is typed string, unless it would itself read as a type name.
  if (base === 'string' && !required && !parseShorthandString(description).type) return description;
  return `${base}${marker}: ${description}`;
}

function toFieldList(schema: JsonSchemaObject): unknown {
  const fields = fieldList(schema);
  if (!fields) return undefined;
  return { ...(schema.title ? { name: schema.title } : {}), ...(schema.description ? { description: schema.description } : {}), fields };
}

function fieldList(schema: JsonSchemaObject): unknown[] | undefined {
  const required = new Set(schema.required ?? []);
  const fields: unknown[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const spec = fieldSpec(property);
    if (!spec) return undefined;
    fields.push({ name, ...spec, ...(required.has(name) ? { required: true } : {}) });
  }
  return fields;
}

function fieldSpec(schema: JsonSchemaObject): Record<string, unknown> | undefined {
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  const out: Record<string, unknown> = {};
  if (types.length !== 1 || schema.anyOf) return undefined;
  const enumValues = schema.enum?.filter((value) => value !== null);
  const base = typeName({ ...schema, enum: undefined });
  if (!base) return undefined;
  out.type = base;
  if (schema.description) out.description = schema.description;
  if (enumValues) out.enum = enumValues;
  if (base === 'object') {
    const properties = fieldList(schema);
    if (!properties) return undefined;
    out.properties = properties;
  } else if (base === 'array') {
    if (!schema.items) return undefined;
    const item = fieldSpec(schema.items);
    if (!item) return undefined;
    out.items = item;
  }
  return out;
}
