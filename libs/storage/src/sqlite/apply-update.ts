/**
 * The port's update language applied in memory, with MongoDB's semantics, for the embedded adapter
 * (which does read-modify-write inside one SQLite transaction).
 */
import type { Doc, Filter, Update } from '../document-store.port';
import { assertFieldName, InvalidFilterError } from './sqlite-filter';

const UPDATE_OPS = new Set(['$set', '$unset', '$inc', '$setOnInsert']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A copy as the document's JSON text will hold it (a string or a finite number is that already). */
function clone<T>(v: T): T {
  if (typeof v === 'string' || typeof v === 'boolean' || v === null || v === undefined) return v;
  if (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)) return v;
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Parent object of a dotted path, creating intermediate objects (like MongoDB's $set). */
function parentOf(doc: Record<string, unknown>, path: string, create: boolean): [Record<string, unknown>, string] | null {
  const segments = path.split('.');
  let cur: Record<string, unknown> = doc;
  for (const seg of segments.slice(0, -1)) {
    let next = cur[seg];
    if (next === undefined || next === null) {
      if (!create) return null;
      next = {};
      cur[seg] = next;
    }
    if (!isPlainObject(next)) {
      if (!create) return null;
      throw new InvalidFilterError(`cannot create field in non-object at ${path}`);
    }
    cur = next;
  }
  return [cur, segments[segments.length - 1]];
}

export function validateUpdate(update: Update): void {
  for (const [op, fields] of Object.entries(update)) {
    if (!UPDATE_OPS.has(op)) throw new InvalidFilterError(`unsupported update operator ${JSON.stringify(op)}`);
    if (fields === undefined) continue;
    if (!isPlainObject(fields)) throw new InvalidFilterError(`${op} needs an object`);
    for (const [field, value] of Object.entries(fields)) {
      assertFieldName(field);
      if (field === '_id' && op !== '$setOnInsert') throw new InvalidFilterError(`${op} may not change _id`);
      if (op === '$inc' && (typeof value !== 'number' || !Number.isFinite(value))) {
        throw new InvalidFilterError(`$inc needs a finite number for ${field}`);
      }
    }
  }
}

/**
 * Returns a new document with the update applied (`inserting` enables $setOnInsert). With `inPlace`
 * the given document itself is changed and returned: for a document the caller just parsed and owns
 * (values taken from the update are still copied, so the result never shares objects with it).
 */
export function applyUpdate<T extends Doc>(doc: T, update: Update, inserting: boolean, inPlace = false): T {
  const out = (inPlace ? doc : clone(doc)) as Record<string, unknown>;
  if (inserting) setAll(out, update.$setOnInsert);
  setAll(out, update.$set);
  for (const [path, by] of Object.entries(update.$inc ?? {})) {
    const [parent, key] = parentOf(out, path, true)!;
    const current = parent[key];
    if (current === undefined || current === null) parent[key] = by;
    else if (typeof current === 'number') parent[key] = current + by;
    else throw new InvalidFilterError(`cannot $inc non-numeric field ${path}`);
  }
  for (const path of Object.keys(update.$unset ?? {})) {
    const hit = parentOf(out, path, false);
    if (hit) delete hit[0][hit[1]];
  }
  return out as T;
}

function setAll(out: Record<string, unknown>, fields: Record<string, unknown> | undefined): void {
  for (const [path, value] of Object.entries(fields ?? {})) {
    if (value === undefined) continue;
    const [parent, key] = parentOf(out, path, true)!;
    parent[key] = clone(value);
  }
}

/** The seed of an upserted document: the filter's equality conditions (scalar or $eq), as MongoDB does. */
export function upsertSeed(filter: Filter): Record<string, unknown> {
  const seed: Record<string, unknown> = {};
  for (const [field, cond] of Object.entries(filter)) {
    let value: unknown;
    if (cond === null || typeof cond !== 'object') value = cond;
    else if ('$eq' in cond && cond.$eq !== undefined) value = cond.$eq;
    else continue;
    if (value === undefined) continue;
    const [parent, key] = parentOf(seed, field, true)!;
    parent[key] = value;
  }
  return seed;
}
