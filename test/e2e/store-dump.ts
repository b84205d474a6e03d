/**
 * Everything a deployment keeps, read straight from its stores (not through the API): every table of the
 * embedded SQLite file and every file of its archive directory, or every collection of the cluster's
 * MongoDB database (GridFS included). Tests compare two dumps to prove what a deletion left.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import mongoose from 'mongoose';

/** Collection (or `files:<dir>`) → document id → the document as JSON text. */
export type StoreDump = Record<string, Map<string, string>>;

export async function dumpSqlite(dataDir: string): Promise<StoreDump> {
  const dump: StoreDump = {};
  // A second, read-only connection: WAL lets it read what the app committed while the app runs.
  const db = new DatabaseSync(join(dataDir, 'gleaner.db'), { readOnly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name")
      .all() as Array<{ name: string }>;
    for (const { name } of tables) {
      const rows = db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>;
      dump[name] = new Map(rows.map((row, i) => [String(row.id ?? row.name ?? i), JSON.stringify(row)]));
    }
  } finally {
    db.close();
  }
  const archive = join(dataDir, 'archive');
  dump['files:archive'] = new Map(listFiles(archive).map((path) => [path.slice(archive.length + 1), String(statSync(path).size)]));
  return dump;
}

export async function dumpMongo(uri: string): Promise<StoreDump> {
  const dump: StoreDump = {};
  const conn = await mongoose.createConnection(uri, { serverSelectionTimeoutMS: 5000 }).asPromise();
  try {
    const db = conn.db!;
    for (const { name } of await db.listCollections().toArray()) {
      const docs = await db.collection(name).find({}).toArray();
      dump[name] = new Map(docs.map((doc) => [String(doc._id), JSON.stringify(doc)]));
    }
  } finally {
    await conn.close();
  }
  return dump;
}

function listFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

/** What differs from `before` in `after`: documents added, removed or changed, per collection. */
export function storeDiff(
  before: StoreDump,
  after: StoreDump,
  ignore: readonly string[] = [],
): Array<{ collection: string; id: string; change: 'added' | 'removed' | 'changed' }> {
  const out: Array<{ collection: string; id: string; change: 'added' | 'removed' | 'changed' }> = [];
  for (const collection of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (ignore.includes(collection)) continue;
    const a = before[collection] ?? new Map<string, string>();
    const b = after[collection] ?? new Map<string, string>();
    for (const [id, text] of b) {
      if (!a.has(id)) out.push({ collection, id, change: 'added' });
      else if (a.get(id) !== text) out.push({ collection, id, change: 'changed' });
    }
    for (const id of a.keys()) if (!b.has(id)) out.push({ collection, id, change: 'removed' });
  }
  return out;
}

/** The documents of a dump whose text holds any of these strings (ids of a tenant and of what it owned). */
export function mentions(dump: StoreDump, needles: readonly string[]): Array<{ collection: string; id: string; needle: string }> {
  const out: Array<{ collection: string; id: string; needle: string }> = [];
  for (const [collection, docs] of Object.entries(dump)) {
    for (const [id, text] of docs) {
      const needle = needles.find((n) => id.includes(n) || text.includes(n));
      if (needle) out.push({ collection, id, needle });
    }
  }
  return out;
}
