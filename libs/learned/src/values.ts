import type { JsonSchemaObject, JsonSchemaType } from '@app/schema';
import { collapseWhitespace } from '@app/content';
import { calendarDate, httpUrlOf, instantOf } from '@app/core';

/** How a schema property's value is produced from page text. */
export type ValueKind = 'string' | 'number' | 'integer' | 'date' | 'date-time' | 'url';

/** A top-level schema property a selector program can extract: a scalar, a list of scalars, or a list of objects. */
export interface LearnableField {
  name: string;
  /** A list of objects has no value kind of its own: `string`, unused (its items' properties have theirs). */
  kind: ValueKind;
  list: boolean;
  nullable: boolean;
  required: boolean;
  /**
   * A list of objects (`list` is true): the properties of its items (docs/long-lists.md "Learned lists"), each a
   * scalar, a list of scalars or a list of objects whose properties are scalars (`tags`, `variants: [{name, price}]`).
   * The rule picks one element per item and reads these inside it.
   */
  items?: LearnableField[];
}

export interface FieldPlan {
  fields: LearnableField[];
  /** Properties no program can extract (objects, booleans, mixed types), with the reason. */
  unsupported: Array<{ field: string; reason: string }>;
}

function typesOf(schema: JsonSchemaObject): JsonSchemaType[] {
  if (schema.anyOf) return schema.anyOf.flatMap(typesOf);
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function scalarKind(schema: JsonSchemaObject): ValueKind | string {
  const types = typesOf(schema).filter((t) => t !== 'null');
  if (types.length !== 1) return types.length === 0 ? 'no type' : `mixed types (${types.join(', ')})`;
  const [type] = types;
  if (type === 'string') {
    if (schema.format === 'date' || schema.format === 'date-time') return schema.format;
    if (schema.format === 'uri') return 'url';
    return 'string';
  }
  if (type === 'number' || type === 'integer') return type;
  return `type ${type}`;
}

const KINDS = new Set<string>(['string', 'number', 'integer', 'date', 'date-time', 'url']);

/**
 * Splits a (normalised, object-rooted) schema into the fields a program can learn and the rest. A list of objects is
 * learnable when each of its items' properties is a scalar (a table of rows, a grid of cards) or a list nested one
 * level down: of scalars, or of objects with scalar properties.
 */
export function planFields(schema: JsonSchemaObject): FieldPlan {
  const fields: LearnableField[] = [];
  const unsupported: FieldPlan['unsupported'] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const types = typesOf(property);
    const nullable = types.includes('null') || types.length === 0;
    const isList = types.includes('array');
    const kind = isList ? scalarKind(property.items ?? {}) : scalarKind(property);
    const base = { name, nullable, required: required.has(name) };
    if (isList && types.filter((t) => t !== 'null').length > 1) unsupported.push({ field: name, reason: 'mixed types' });
    else if (isList && kind === 'type object') {
      const items = itemFields(property.items ?? {});
      if (typeof items === 'string') unsupported.push({ field: name, reason: `list items of objects with ${items}` });
      else fields.push({ ...base, kind: 'string', list: true, items });
    } else if (!KINDS.has(kind)) unsupported.push({ field: name, reason: isList ? `list items of ${kind}` : kind });
    else fields.push({ ...base, kind: kind as ValueKind, list: isList });
  }
  return { fields, unsupported };
}

/** The properties of a list's object items when each is a scalar or a list one level down; else why not. */
function itemFields(schema: JsonSchemaObject): LearnableField[] | string {
  const plan = planFields(schema);
  // One level of nesting: an item's list of objects holds scalars only (a variant's price, not its own list).
  const deep = plan.fields.find((f) => f.items?.some((p) => p.list));
  if (plan.unsupported.length > 0) return `${plan.unsupported[0].field}: ${plan.unsupported[0].reason}`;
  if (deep) return `${deep.name}: a list inside a list inside an item`;
  if (plan.fields.length === 0) return 'no properties';
  return plan.fields;
}

/** Text as compared: Unicode NFC, whitespace collapsed. */
export function normText(text: string): string {
  return collapseWhitespace(text.normalize('NFC'));
}

function isEmpty(value: unknown): boolean {
  return (
    value === null ||
    value === undefined ||
    (typeof value === 'string' && normText(value) === '') ||
    (Array.isArray(value) && value.length === 0)
  );
}

function scalarAgrees(kind: ValueKind, a: unknown, b: unknown): boolean {
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (kind === 'number' || kind === 'integer') {
    const x = typeof a === 'number' ? a : Number(a);
    const y = typeof b === 'number' ? b : Number(b);
    return Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  }
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  if (kind === 'url') return sameUrl(a, b);
  return normText(a) === normText(b);
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return normText(a) === normText(b);
  }
}

/**
 * Whether two values of a field agree: text compared after NFC and whitespace collapsing, numbers
 * numerically, URLs parsed; for lists, the same items in the same order. Null, missing, "" and []
 * all mean "not on the page" and agree with each other.
 */
export function valuesAgree(field: LearnableField, a: unknown, b: unknown): boolean {
  if (!field.list) return scalarAgrees(field.kind, a, b);
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  const { items } = field;
  if (items) return a.every((item, i) => itemsAgree(items, item, b[i]));
  return a.every((item, i) => scalarAgrees(field.kind, item, b[i]));
}

/** Two items of a list of objects: every property agrees (a missing property as null; a nested list item by item). */
function itemsAgree(fields: LearnableField[], a: unknown, b: unknown): boolean {
  if (!isRecord(a) || !isRecord(b)) return false;
  return fields.every((f) => valuesAgree(f, a[f.name], b[f.name]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field-by-field comparison of two records; returns the names of the fields that disagree. */
export function disagreeingFields(fields: LearnableField[], a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return fields.filter((field) => !valuesAgree(field, a[field.name], b[field.name])).map((field) => field.name);
}

export function hasValue(value: unknown): boolean {
  return !isEmpty(value);
}

/** "$1,299.00", "1 299,50 €", "-12.5" → numbers; ambiguous separators resolved by position (as the model-reply coercion). */
export function parseNumber(raw: string): number | undefined {
  let text = raw.trim().replace(/[\s\u00a0\u202f]/g, '');
  text = text.replace(/^[^\d.,+-]+|[^\d.,]+$/g, '');
  if (!/^[+-]?[\d.,]*\d[\d.,]*$/.test(text)) return undefined;
  const lastComma = text.lastIndexOf(',');
  const lastDot = text.lastIndexOf('.');
  if (lastComma > -1 && lastDot > -1) text = lastComma > lastDot ? text.replace(/\./g, '').replace(',', '.') : text.replace(/,/g, '');
  else if (lastComma > -1) text = /,\d{3}$/.test(text) ? text.replace(/,/g, '') : text.replace(',', '.');
  else if ((text.match(/\./g) ?? []).length > 1) text = text.replace(/\./g, '');
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** A calendar date as YYYY-MM-DD, read in UTC so the day never shifts; free text only with a month's name. */
export function parseDate(raw: string): string | undefined {
  return calendarDate(raw, { namedMonth: true });
}

export function parseDateTime(raw: string): string | undefined {
  const text = raw.trim();
  if (!/\d{4}/.test(text)) return undefined;
  return instantOf(text);
}

export function parseUrl(raw: string, base: string): string | undefined {
  return httpUrlOf(raw, base);
}

/** Raw page text → the field's value kind; undefined when it does not parse. */
export function parseAs(kind: ValueKind, raw: string, pageUrl: string): string | number | undefined {
  const text = normText(raw);
  if (text === '') return undefined;
  switch (kind) {
    case 'string':
      return text;
    case 'number':
      return parseNumber(text);
    case 'integer': {
      const n = parseNumber(text);
      return n !== undefined && Number.isInteger(n) ? n : undefined;
    }
    case 'date':
      return parseDate(text);
    case 'date-time':
      return parseDateTime(text);
    case 'url':
      return parseUrl(text, pageUrl);
  }
}

/** The schema of some of its top-level fields (a partial model call): their properties, and which of them are required. */
export function partialSchema(schema: JsonSchemaObject, names: string[]): JsonSchemaObject {
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([name]) => names.includes(name)));
  const required = (schema.required ?? []).filter((name) => names.includes(name));
  return { ...schema, properties, required };
}
