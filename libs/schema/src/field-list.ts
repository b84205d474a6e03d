import type { ParseContext } from './context';
import { checkEnum } from './enum-values';
import { checkFieldName } from './field-name';
import { describeType, hasOwn, indexPath, isPlainObject, keyPath } from './issues';
import { canonical, objectSchema } from './optional';
import { isContainer, resolveTypeName, scalarSchema, TYPE_NAMES, type TypeName } from './type-names';
import type { JsonSchemaObject } from './types';

const ROOT_KEYS = ['name', 'description', 'fields'];
const FIELD_KEYS = ['name', 'type', 'description', 'required', 'items', 'properties', 'enum'];
const ITEM_KEYS = ['type', 'description', 'items', 'properties', 'enum'];

/** Field-list form: `{name, description, fields: [{name, type, description, required, items, properties}]}`. */
export function fromFieldList(root: Record<string, unknown>, location: string, ctx: ParseContext): JsonSchemaObject | undefined {
  return fieldListSpec(root, location, ctx);
}

/** `{name?, description?, fields}`: the root, or a nested spec used as `items`. */
function fieldListSpec(spec: Record<string, unknown>, at: string, ctx: ParseContext): JsonSchemaObject | undefined {
  unknownKeys(spec, ROOT_KEYS, at, ctx);
  let title: string | undefined;
  if (spec.name !== undefined) {
    const problem =
      typeof spec.name === 'string' && spec.name.trim() !== '' ? checkFieldName(spec.name) : 'name must be a non-empty string';
    if (problem) ctx.issues.add(keyPath(at, 'name'), problem.replace('field name', 'name'), spec.name);
    else title = (spec.name as string).trim();
  }
  const description = ctx.description(spec.description, keyPath(at, 'description'));
  return fieldList(spec.fields, keyPath(at, 'fields'), ctx, { title, description });
}

function fieldList(
  value: unknown,
  at: string,
  ctx: ParseContext,
  extra: Pick<JsonSchemaObject, 'title' | 'description'> = {},
): JsonSchemaObject | undefined {
  if (!Array.isArray(value)) {
    ctx.issues.add(at, `expected a list of fields; got ${describeType(value)}`);
    return undefined;
  }
  if (value.length === 0) {
    ctx.issues.add(at, 'field list is empty');
    return undefined;
  }
  const names = new Set<string>();
  const entries: Array<{ name: string; schema: JsonSchemaObject; required: boolean }> = [];
  value.forEach((field: unknown, index) => {
    const fieldAt = indexPath(at, index);
    if (!isPlainObject(field)) {
      ctx.issues.add(fieldAt, `expected a field object {name, type, ...}; got ${describeType(field)}`);
      return;
    }
    ctx.countField(fieldAt);
    unknownKeys(field, FIELD_KEYS, fieldAt, ctx);
    const nameAt = keyPath(fieldAt, 'name');
    const problem = field.name === undefined ? 'field needs a name' : checkFieldName(field.name);
    let name: string | undefined;
    if (problem) ctx.issues.add(nameAt, problem, field.name);
    else if (names.has(field.name as string)) ctx.issues.add(nameAt, `duplicate field name "${field.name as string}"`, field.name);
    else name = field.name as string;
    if (name !== undefined) names.add(name);

    let required = false;
    if (field.required !== undefined && typeof field.required !== 'boolean') {
      ctx.issues.add(keyPath(fieldAt, 'required'), 'required must be true or false', field.required);
    } else required = field.required === true;

    const schema = fieldSchema(field, fieldAt, ctx);
    if (name !== undefined && schema) entries.push({ name, schema, required });
  });
  return objectSchema(entries, extra);
}

/** The schema of one field or item spec (type, description, items, properties, enum). */
function fieldSchema(spec: Record<string, unknown>, at: string, ctx: ParseContext): JsonSchemaObject | undefined {
  const typeAt = keyPath(at, 'type');
  let type: TypeName | undefined;
  if (spec.type === undefined) {
    type = hasOwn(spec, 'properties') ? 'object' : hasOwn(spec, 'items') ? 'array' : 'string';
  } else if (typeof spec.type !== 'string') {
    ctx.issues.add(typeAt, `type must be one of: ${TYPE_NAMES.join(', ')}`, spec.type);
    return undefined;
  } else {
    type = resolveTypeName(spec.type);
    if (!type) {
      ctx.issues.add(typeAt, `unknown type "${spec.type}"`, spec.type);
      return undefined;
    }
  }
  const description = ctx.description(spec.description, keyPath(at, 'description'));
  if (spec.items !== undefined && type !== 'array') ctx.issues.add(keyPath(at, 'items'), '"items" is only allowed for type array');
  if (spec.properties !== undefined && type !== 'object')
    ctx.issues.add(keyPath(at, 'properties'), '"properties" is only allowed for type object');

  if (type === 'object') {
    if (spec.properties === undefined) {
      ctx.issues.add(at, 'an object field needs "properties" (a list of fields)');
      return undefined;
    }
    if (spec.enum !== undefined) ctx.issues.add(keyPath(at, 'enum'), '"enum" is only allowed for string, number and integer fields');
    return fieldList(spec.properties, keyPath(at, 'properties'), ctx, { description });
  }
  if (type === 'array') {
    if (spec.items === undefined) {
      ctx.issues.add(at, 'an array field needs "items" (a type name, a list of fields or {fields: [...]})');
      return undefined;
    }
    if (spec.enum !== undefined) ctx.issues.add(keyPath(at, 'enum'), '"enum" is only allowed for string, number and integer fields');
    const items = itemSchema(spec.items, keyPath(at, 'items'), ctx);
    return items && canonical({ type: 'array', description, items });
  }
  const base = scalarSchema(type);
  let values;
  if (spec.enum !== undefined) {
    if (base.type === 'boolean') ctx.issues.add(keyPath(at, 'enum'), '"enum" is only allowed for string, number and integer fields');
    else values = checkEnum(spec.enum, keyPath(at, 'enum'), ctx, [base.type as string]);
  }
  return canonical({ ...base, description, enum: values });
}

/** `items`: a type name, a list of fields, `{fields: [...]}` or an item spec `{type, items, ...}`. */
function itemSchema(value: unknown, at: string, ctx: ParseContext): JsonSchemaObject | undefined {
  if (typeof value === 'string') {
    const type = resolveTypeName(value);
    if (!type) {
      ctx.issues.add(at, `unknown type "${value}"`, value);
      return undefined;
    }
    if (isContainer(type)) {
      ctx.issues.add(at, `items of type ${type} need a structure: use a list of fields or {type: "array", items: ...}`, value);
      return undefined;
    }
    return scalarSchema(type);
  }
  if (Array.isArray(value)) return fieldList(value, at, ctx);
  if (isPlainObject(value)) {
    if (hasOwn(value, 'fields')) return fieldListSpec(value, at, ctx);
    unknownKeys(value, ITEM_KEYS, at, ctx);
    return fieldSchema(value, at, ctx);
  }
  ctx.issues.add(at, `items must be a type name, a list of fields or an object; got ${describeType(value)}`);
  return undefined;
}

function unknownKeys(spec: Record<string, unknown>, allowed: string[], at: string, ctx: ParseContext): void {
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) ctx.issues.add(keyPath(at, key), `unknown key "${key}" (allowed: ${allowed.join(', ')})`);
  }
}
