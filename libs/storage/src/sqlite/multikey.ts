/**
 * Multikey indexes of the embedded store (IndexSpec.multikey): a field holding an array of strings or numbers whose
 * elements a filter matches one by one, as MongoDB's multikey index does. SQLite cannot index the elements of a JSON
 * array, so each such field has a side table `(id, value)` of its documents' elements, indexed by value, and triggers on
 * the collection's table keep it: a document's insert, update or delete is still ONE statement of the collection (the
 * triggers run inside it), and the side table is never out of step with the documents, whichever write path changed
 * them. An update that leaves the array as it was writes nothing to the side table.
 *
 * A filter's equality or `$in` on the field reads the side table: `id IN (SELECT id FROM side WHERE value IN (...))`, so
 * a query whose only condition is on the field is a lookup per element, whatever the collection's size. (With other
 * indexed conditions beside it, SQLite may drive the query from their index instead and test each row's elements.)
 */
import type { Scalar } from '../document-store.port';
import { assertFieldName, InvalidFilterError, type SqlParam } from './sqlite-filter';

/** Field path → quoted side table of a collection's multikey fields. */
export type ArrayFieldMap = ReadonlyMap<string, string>;

/** The side table of a collection's multikey field (quoted). */
export function sideTableName(collection: string, path: string): string {
  assertFieldName(path);
  return `"m_${collection}__${path.replace(/\./g, '__')}"`;
}

/** A field's elements as SQLite sees them in a document (strings and numbers only; one row per distinct value). */
function elementsOf(doc: string, path: string): string {
  return `SELECT DISTINCT value FROM json_each(${doc}, '$.${path}') WHERE type IN ('text','integer','real')`;
}

/**
 * The SQL that creates a multikey field's side table, its index and the triggers on `table` (idempotent), and fills it
 * from the documents already stored when the side table is new (`fresh`).
 */
export function multikeySql(table: string, collection: string, path: string, fresh: boolean): string[] {
  const side = sideTableName(collection, path);
  const name = side.slice(1, -1);
  const extract = `json_extract(OLD.doc, '$.${path}') IS NOT json_extract(NEW.doc, '$.${path}')`;
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${side} (id TEXT NOT NULL, value NOT NULL, PRIMARY KEY (id, value)) WITHOUT ROWID`,
    `CREATE INDEX IF NOT EXISTS "mx_${name}" ON ${side} (value)`,
    `CREATE TRIGGER IF NOT EXISTS "mi_${name}" AFTER INSERT ON ${table} BEGIN ` +
      `INSERT INTO ${side} (id, value) SELECT NEW.id, value FROM (${elementsOf('NEW.doc', path)}); END`,
    `CREATE TRIGGER IF NOT EXISTS "mu_${name}" AFTER UPDATE OF doc ON ${table} WHEN ${extract} BEGIN ` +
      `DELETE FROM ${side} WHERE id = OLD.id; ` +
      `INSERT INTO ${side} (id, value) SELECT NEW.id, value FROM (${elementsOf('NEW.doc', path)}); END`,
    `CREATE TRIGGER IF NOT EXISTS "md_${name}" AFTER DELETE ON ${table} BEGIN DELETE FROM ${side} WHERE id = OLD.id; END`,
  ];
  if (fresh) {
    statements.push(
      `INSERT OR IGNORE INTO ${side} (id, value) SELECT t.id, j.value FROM ${table} AS t, json_each(t.doc, '$.${path}') AS j ` +
        `WHERE j.type IN ('text','integer','real')`,
    );
  }
  return statements;
}

/** The condition of a filter on a multikey field: equality (`v`, `{$eq: v}`) or `{$in: [...]}`, strings and numbers. */
export function multikeyCondition(side: string, field: string, cond: unknown, params: SqlParam[]): string {
  let values: unknown[];
  if (typeof cond === 'string' || typeof cond === 'number') values = [cond];
  else if (cond !== null && typeof cond === 'object' && !Array.isArray(cond)) {
    const ops = Object.entries(cond as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (ops.length !== 1 || (ops[0][0] !== '$eq' && ops[0][0] !== '$in')) {
      throw new InvalidFilterError(`only equality and $in are supported on the multikey field ${field}`);
    }
    const [op, v] = ops[0];
    if (op === '$in' && !Array.isArray(v)) throw new InvalidFilterError('$in/$nin needs an array');
    values = op === '$in' ? (v as unknown[]) : [v];
  } else throw new InvalidFilterError(`only equality and $in are supported on the multikey field ${field}`);
  for (const v of values as Scalar[]) {
    if (typeof v === 'number' ? !Number.isFinite(v) : typeof v !== 'string') {
      throw new InvalidFilterError(`a multikey field matches strings and numbers only (${field})`);
    }
  }
  if (values.length === 0) return '0';
  if (values.length === 1) {
    params.push(values[0] as string | number);
    return `id IN (SELECT id FROM ${side} WHERE value = ?)`;
  }
  // One JSON-array parameter keeps the SQL text (and so the cached statement) independent of the list's length.
  params.push(JSON.stringify(values));
  return `id IN (SELECT id FROM ${side} WHERE value IN (SELECT value FROM json_each(?)))`;
}
