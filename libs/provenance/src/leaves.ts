import type { JsonSchemaObject, JsonSchemaType } from '@app/schema';
import type { LeafKind } from './ground-value';

/** One leaf of extracted data: a scalar, null, or an empty list or object, at its path. */
export interface Leaf {
  /** `title`, `author[0]`, `variants[1].sku`; keys that are not plain names are quoted: `["a.b"]`. */
  path: string;
  /** The top-level field it belongs to (learned rules and partial calls are per top-level field). */
  field: string;
  value: unknown;
  kind: LeafKind;
  /** Where it sits, so a policy can replace it. */
  parent: Record<string, unknown> | unknown[] | null;
  key: string | number;
}

/**
 * The leaves of `data` under `schema`, in schema order (docs/provenance.md "Paths"). A property the data leaves out
 * is a leaf with value `undefined` (the model said nothing). Stops after `limit` leaves; `omitted` counts the rest.
 */
export function leavesOf(data: unknown, schema: JsonSchemaObject, limit: number): { leaves: Leaf[]; omitted: number } {
  const leaves: Leaf[] = [];
  let omitted = 0;
  const add = (leaf: Leaf) => {
    if (leaves.length < limit) leaves.push(leaf);
    else omitted++;
  };
  // Iterative (a schema may nest 32 levels and lists may be long): a stack of what is left to visit.
  type Visit = { value: unknown; schema: JsonSchemaObject; path: string; field: string; parent: Leaf['parent']; key: string | number };
  const stack: Visit[] = [];
  const root = option(data, schema);
  if (isRecord(data) && root.properties) {
    const entries = Object.entries(root.properties);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [name, child] = entries[i];
      stack.push({ value: data[name], schema: child, path: keyPath('', name), field: name, parent: data, key: name });
    }
  } else {
    add({ path: '', field: '', value: data, kind: kindOf(root, data), parent: null, key: '' });
  }
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const s = option(visit.value, visit.schema);
    const value = visit.value;
    if (Array.isArray(value) && value.length > 0) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], schema: s.items ?? {}, path: `${visit.path}[${i}]`, field: visit.field, parent: value, key: i });
      continue;
    }
    if (isRecord(value) && s.properties && Object.keys(s.properties).length > 0) {
      const entries = Object.entries(s.properties);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, child] = entries[i];
        stack.push({ value: value[name], schema: child, path: keyPath(visit.path, name), field: visit.field, parent: value, key: name });
      }
      continue;
    }
    add({ path: visit.path, field: visit.field, value, kind: kindOf(s, value), parent: visit.parent, key: visit.key });
  }
  return { leaves, omitted };
}

/** The `anyOf` option a value was made for (the first whose type fits), or the schema itself. */
function option(value: unknown, schema: JsonSchemaObject): JsonSchemaObject {
  if (!schema.anyOf) return schema;
  return schema.anyOf.find((o) => typesOf(o).some((t) => fits(t, value))) ?? schema.anyOf[0] ?? schema;
}

function typesOf(schema: JsonSchemaObject): JsonSchemaType[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

function fits(type: JsonSchemaType, value: unknown): boolean {
  if (type === 'null') return value === null;
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return isRecord(value);
  if (type === 'integer') return Number.isInteger(value);
  return typeof value === type;
}

/** Booleans, enum values and constants are chosen from the schema, not read from the page: they are not checked. */
function kindOf(schema: JsonSchemaObject, value: unknown): LeafKind {
  if (schema.enum !== undefined || typeof value === 'boolean') return 'unchecked';
  const types = typesOf(schema).filter((t) => t !== 'null');
  if (types.includes('boolean') && types.length === 1) return 'unchecked';
  if (typeof value === 'number') return types.includes('integer') && !types.includes('number') ? 'integer' : 'number';
  if (schema.format === 'date') return 'date';
  if (schema.format === 'date-time') return 'date-time';
  if (schema.format === 'uri') return 'url';
  return 'string';
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** A path given as its property names and list indices, written as leaf paths are (`offers[1].price`). */
export function formatPath(segments: ReadonlyArray<string | number>): string {
  let path = '';
  for (const segment of segments) path = typeof segment === 'number' ? `${path}[${segment}]` : keyPath(path, segment);
  return path;
}

function keyPath(base: string, name: string): string {
  if (PLAIN_KEY.test(name)) return base === '' ? name : `${base}.${name}`;
  return `${base}[${JSON.stringify(name)}]`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
