/**
 * The fields a collection indexes, kept as real columns beside the document text (docs/architecture.md
 * "Embedded store"). An index over `json_extract(doc, ...)` is recomputed on every write of the row,
 * because every such expression reads `doc`: a crawl entry with eight indexed fields paid eight JSON
 * parses and eight index rewrites per status change. A column is written only when its value changes,
 * so SQLite leaves every index that does not cover a changed field alone.
 *
 * A column holds what the filter compares, typed so that values of different JSON types never compare
 * equal (MongoDB's rule) without a second look at the document: strings as TEXT, numbers as
 * INTEGER/REAL, booleans and objects/arrays as BLOBs of their JSON text (`true`, `false`, `{...}`, `[...]`,
 * which no string, number or other such value shares), null and missing as NULL.
 */
import { assertFieldName, booleanLiteral } from './sqlite-filter';

export type ColumnValue = string | number | null | Uint8Array;

const encoder = new TextEncoder();
const TRUE = encoder.encode('true');
const FALSE = encoder.encode('false');

/** The column value of `path` in a document, as SQLite's JSON functions would see the stored text. */
export function columnValue(doc: unknown, path: string): ColumnValue {
  let value: unknown = doc;
  for (const key of path.split('.')) {
    value = jsonForm(value);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    value = (value as Record<string, unknown>)[key];
  }
  value = jsonForm(value);
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  // JSON.stringify writes NaN and ±Infinity as null.
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? TRUE : FALSE;
  if (typeof value === 'object') return encoder.encode(JSON.stringify(value));
  return null; // functions and symbols are dropped by JSON.stringify
}

/** A value as JSON.stringify writes it (a Date is its ISO string). */
function jsonForm(value: unknown): unknown {
  return value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function'
    ? (value as { toJSON(): unknown }).toJSON()
    : value;
}

export function sameColumnValue(a: ColumnValue, b: ColumnValue): boolean {
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  }
  return a === b;
}

/** The column of a field: `x_` and the path with dots as double underscores, quoted. */
export function columnName(path: string): string {
  assertFieldName(path);
  return `"x_${path.replace(/\./g, '__')}"`;
}

/**
 * SQL computing a field's column value from the stored document: how existing rows get a column added
 * after they were written (the values equal what {@link columnValue} gives for the parsed document).
 */
export function backfillExpression(path: string): string {
  assertFieldName(path);
  const p = `'$.${path}'`;
  return (
    `CASE json_type(doc,${p}) WHEN 'true' THEN ${booleanLiteral(true)} WHEN 'false' THEN ${booleanLiteral(false)} ` +
    `WHEN 'object' THEN CAST(json_extract(doc,${p}) AS BLOB) WHEN 'array' THEN CAST(json_extract(doc,${p}) AS BLOB) ` +
    `ELSE json_extract(doc,${p}) END`
  );
}

/** A collection's indexed fields (not `_id`, which is the key) and their columns. */
export class IndexedColumns {
  /** Field path → quoted column name. */
  readonly byPath: ReadonlyMap<string, string>;
  readonly paths: readonly string[];

  constructor(paths: Iterable<string>) {
    const unique = [...new Set(paths)].filter((p) => p !== '_id');
    this.paths = unique;
    this.byPath = new Map(unique.map((p) => [p, columnName(p)]));
  }

  /** Every column's value for a document, in `paths` order. */
  values(doc: unknown): ColumnValue[] {
    return this.paths.map((p) => columnValue(doc, p));
  }

  /** The columns whose value differs between two documents' values, and their new values. */
  changed(before: readonly ColumnValue[], after: readonly ColumnValue[]): { columns: string[]; values: ColumnValue[] } {
    const columns: string[] = [];
    const values: ColumnValue[] = [];
    for (let i = 0; i < this.paths.length; i++) {
      if (!sameColumnValue(before[i], after[i])) {
        columns.push(this.byPath.get(this.paths[i])!);
        values.push(after[i]);
      }
    }
    return { columns, values };
  }
}
