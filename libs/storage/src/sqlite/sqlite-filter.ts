/**
 * Translates the port's Filter/SortSpec into parameterised SQLite over a `(id TEXT, doc TEXT, x_...)`
 * table. An indexed field is read from its own column (indexed-columns.ts), whose values are typed so
 * that different JSON types never compare equal; any other field from the document with json_extract().
 *
 * Field paths are validated and inlined (never values). Values are always bound. json_extract maps JSON
 * true/false to 1/0 and objects to their JSON text, so every typed comparison on a document field is
 * guarded with json_type() to keep MongoDB's "types never compare equal" behaviour.
 */
import type { FieldCondition, Filter, Scalar, SortSpec } from '../document-store.port';
import { multikeyCondition, type ArrayFieldMap } from './multikey';

export type SqlParam = string | number | null | Uint8Array;

/** Field path → column name of a collection's indexed fields (empty: every field from the document). */
export type ColumnMap = ReadonlyMap<string, string>;

const NO_COLUMNS: ColumnMap = new Map();
const NO_ARRAYS: ArrayFieldMap = new Map();

/** The SQL literal of a boolean's column value (inlined: a constant, never user input). */
export function booleanLiteral(value: boolean): string {
  return value ? "x'74727565'" : "x'66616c7365'";
}

export interface SqlFragment {
  sql: string;
  params: SqlParam[];
}

const FIELD_RE = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$lt', '$lte', '$gt', '$gte', '$exists']);

export class InvalidFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidFilterError';
  }
}

/** Field names already found valid: the code's own, a few dozen, checked on every query otherwise. */
const validFields = new Set<string>();
const VALID_FIELDS_MAX = 10_000;

/** Throws unless `field` is a plain (optionally dotted) identifier path. */
export function assertFieldName(field: string): void {
  if (validFields.has(field)) return;
  if (typeof field !== 'string' || !FIELD_RE.test(field) || field.split('.').some((s) => s === '')) {
    throw new InvalidFilterError(`invalid field name: ${JSON.stringify(field)}`);
  }
  if (validFields.size < VALID_FIELDS_MAX) validFields.add(field);
}

/**
 * The SQL value expression and JSON type expression of a field. `_id` is the primary-key column; an
 * indexed field is its column (`column`: its values are typed, no type guard needed).
 */
export function fieldExpr(field: string, columns: ColumnMap = NO_COLUMNS): Target {
  assertFieldName(field);
  // `_id` is TEXT with text affinity (a number would be compared as text): the document rules apply to it.
  if (field === '_id') return { value: 'id', type: "'text'", column: false };
  const path = `'$.${field}'`;
  const column = columns.get(field);
  if (column) return { value: column, type: `json_type(doc,${path})`, column: true };
  return { value: `json_extract(doc,${path})`, type: `json_type(doc,${path})`, column: false };
}

type Target = { value: string; type: string; column: boolean };

function eq(t: Target, v: Scalar, params: SqlParam[]): string {
  if (v === null) return `${t.value} IS NULL`;
  if (t.column) {
    if (typeof v === 'boolean') return `${t.value} = ${booleanLiteral(v)}`;
    if (typeof v === 'number' && !Number.isFinite(v)) throw new InvalidFilterError('non-finite number in filter');
    if (typeof v !== 'number' && typeof v !== 'string') throw new InvalidFilterError(`unsupported filter value: ${JSON.stringify(v)}`);
    params.push(v);
    return `${t.value} = ?`;
  }
  if (typeof v === 'boolean') return `(${t.value} = ${v ? 1 : 0} AND ${t.type} = '${v ? 'true' : 'false'}')`;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new InvalidFilterError('non-finite number in filter');
    params.push(v);
    return `(${t.value} = ? AND ${t.type} IN ('integer','real'))`;
  }
  if (typeof v === 'string') {
    params.push(v);
    // json_extract() gives a string's text, a number for numbers and booleans, and an object's or array's
    // JSON text: only a value that starts like the latter can equal one, so only then the type check
    // (a second parse of the document on every row).
    return /^[[{]/.test(v) ? `(${t.value} = ? AND ${t.type} = 'text')` : `${t.value} = ?`;
  }
  throw new InvalidFilterError(`unsupported filter value: ${JSON.stringify(v)}`);
}

function inList(t: Target, values: Scalar[], params: SqlParam[]): string {
  if (!Array.isArray(values)) throw new InvalidFilterError('$in/$nin needs an array');
  if (values.length === 0) return '0';
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const parts: string[] = [];
  // One JSON-array parameter keeps the SQL text (and so the cached statement) independent of list length.
  if (strings.length === 1) parts.push(eq(t, strings[0], params));
  else if (strings.length > 1) {
    params.push(JSON.stringify(strings));
    parts.push(
      t.column
        ? `${t.value} IN (SELECT value FROM json_each(?))`
        : `(${t.value} IN (SELECT value FROM json_each(?)) AND ${t.type} = 'text')`,
    );
  }
  if (numbers.length === 1) parts.push(eq(t, numbers[0], params));
  else if (numbers.length > 1) {
    if (!numbers.every(Number.isFinite)) throw new InvalidFilterError('non-finite number in filter');
    params.push(JSON.stringify(numbers));
    parts.push(
      t.column
        ? `${t.value} IN (SELECT value FROM json_each(?))`
        : `(${t.value} IN (SELECT value FROM json_each(?)) AND ${t.type} IN ('integer','real'))`,
    );
  }
  for (const v of values) {
    if (v === null || typeof v === 'boolean') parts.push(eq(t, v, params));
    else if (typeof v !== 'string' && typeof v !== 'number') {
      throw new InvalidFilterError(`unsupported filter value: ${JSON.stringify(v)}`);
    }
  }
  return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
}

function range(t: Target, op: string, v: unknown, params: SqlParam[]): string {
  const sqlOp = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' }[op]!;
  // A column's storage class is its JSON type (typeof() reads the index entry, not the document).
  const type = t.column ? `typeof(${t.value})` : t.type;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new InvalidFilterError('non-finite number in filter');
    params.push(v);
    return `(${t.value} ${sqlOp} ? AND ${type} IN ('integer','real'))`;
  }
  if (typeof v === 'string') {
    params.push(v);
    return `(${t.value} ${sqlOp} ? AND ${type} = 'text')`;
  }
  throw new InvalidFilterError(`${op} needs a string or number`);
}

/** NOT that stays true when the positive condition is NULL (missing field), as MongoDB's $ne/$nin. */
function not(sql: string): string {
  return `NOT IFNULL(${sql}, 0)`;
}

function condition(field: string, cond: FieldCondition, params: SqlParam[], columns: ColumnMap, arrays: ArrayFieldMap): string {
  const side = arrays.get(field);
  if (side) return multikeyCondition(side, field, cond, params);
  const t = fieldExpr(field, columns);
  if (cond === null || typeof cond !== 'object') return eq(t, cond, params);
  if (Array.isArray(cond)) throw new InvalidFilterError(`array equality is not supported (${field})`);
  const parts: string[] = [];
  for (const [op, v] of Object.entries(cond)) {
    if (!OPERATORS.has(op)) throw new InvalidFilterError(`unsupported operator ${JSON.stringify(op)} on ${field}`);
    if (v === undefined) continue;
    switch (op) {
      case '$eq':
        parts.push(eq(t, v as Scalar, params));
        break;
      case '$ne':
        parts.push(not(eq(t, v as Scalar, params)));
        break;
      case '$in':
        parts.push(inList(t, v as Scalar[], params));
        break;
      case '$nin':
        parts.push(not(inList(t, v as Scalar[], params)));
        break;
      case '$exists':
        parts.push(v ? `${t.type} IS NOT NULL` : `${t.type} IS NULL`);
        break;
      default:
        parts.push(range(t, op, v, params));
    }
  }
  return parts.length === 0 ? '1' : parts.join(' AND ');
}

/**
 * WHERE clause body (without the keyword) for a filter; `1` when the filter is empty. `arrays`: the collection's multikey
 * fields and their side tables (multikey.ts).
 */
export function translateFilter(filter: Filter, columns: ColumnMap = NO_COLUMNS, arrays: ArrayFieldMap = NO_ARRAYS): SqlFragment {
  const params: SqlParam[] = [];
  const parts: string[] = [];
  for (const [field, cond] of Object.entries(filter ?? {})) {
    if (cond === undefined) continue;
    parts.push(condition(field, cond, params, columns, arrays));
  }
  return { sql: parts.length === 0 ? '1' : parts.join(' AND '), params };
}

/** ORDER BY body (without the keyword), or '' for none. NULL/missing sort first ascending, as in MongoDB. */
export function translateSort(sort: SortSpec | undefined, columns: ColumnMap = NO_COLUMNS, arrays: ArrayFieldMap = NO_ARRAYS): string {
  if (!sort) return '';
  return Object.entries(sort)
    .map(([field, dir]) => {
      if (dir !== 1 && dir !== -1) throw new InvalidFilterError(`invalid sort direction for ${field}`);
      if (arrays.has(field)) throw new InvalidFilterError(`a multikey field cannot be sorted on (${field})`);
      return `${fieldExpr(field, columns).value} ${dir === 1 ? 'ASC' : 'DESC'}`;
    })
    .join(', ');
}
