import { warning } from '@app/core';
import type { ParseContext } from './context';
import { checkFieldName } from './field-name';
import { describeType, indexPath, isPlainObject, keyPath } from './issues';
import { canonical, objectSchema } from './optional';
import { misspelledTypeName, parseShorthandString, scalarSchema } from './type-names';
import type { JsonSchemaObject } from './types';

interface Field {
  schema: JsonSchemaObject;
  required: boolean;
}

/** Shorthand form: `{"title": "string", "tags": ["string"], "author": {"name": "string"}}`. */
export function fromShorthand(root: Record<string, unknown>, location: string, ctx: ParseContext): JsonSchemaObject | undefined {
  return shorthandObject(root, location, ctx);
}

function shorthandObject(value: Record<string, unknown>, location: string, ctx: ParseContext): JsonSchemaObject | undefined {
  const keys = Object.keys(value);
  if (keys.length === 0) {
    ctx.issues.add(location, 'object has no fields');
    return undefined;
  }
  const entries: Array<Field & { name: string }> = [];
  for (const key of keys) {
    const at = keyPath(location, key);
    const problem = checkFieldName(key);
    if (problem) {
      ctx.issues.add(at, problem, key);
      continue;
    }
    ctx.countField(at);
    const field = shorthandValue(value[key], at, ctx);
    if (field) entries.push({ name: key, ...field });
  }
  return objectSchema(entries);
}

function shorthandValue(value: unknown, at: string, ctx: ParseContext): Field | undefined {
  if (typeof value === 'string') {
    const parsed = parseShorthandString(value);
    const description = parsed.description;
    if (parsed.type === 'object') {
      ctx.issues.add(at, 'an object needs fields: write {"name": "string"} instead of "object"', value);
      return undefined;
    }
    if (parsed.type === 'array') {
      ctx.issues.add(at, 'a list needs an item type: write ["string"] instead of "array"', value);
      return undefined;
    }
    const meant = parsed.type ? undefined : misspelledTypeName(value);
    if (meant) {
      ctx.warnings.push(
        warning(
          'schema_type_misspelled',
          `"${value.trim()}" is not a type name, so this is a text field described as "${value.trim()}"; did you mean ${meant}?`,
          at,
        ),
      );
    }
    const base = parsed.type ? scalarSchema(parsed.type) : { type: 'string' as const };
    const checked = ctx.description(description, at);
    return { schema: canonical({ ...base, description: checked }), required: parsed.required };
  }
  if (Array.isArray(value)) {
    if (value.length !== 1) {
      ctx.issues.add(at, 'a list must hold exactly one item type, e.g. ["string"] or [{"name": "string"}]');
      return undefined;
    }
    const item = shorthandValue(value[0], indexPath(at, 0), ctx);
    // Markers inside a list mean nothing: list items are never null.
    return item && { schema: { type: 'array', items: item.schema }, required: false };
  }
  if (isPlainObject(value)) {
    const schema = shorthandObject(value, at, ctx);
    return schema && { schema, required: false };
  }
  ctx.issues.add(at, `expected a type name, a description, an object or a list; got ${describeType(value)}`, value);
  return undefined;
}
