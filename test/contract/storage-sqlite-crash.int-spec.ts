/**
 * Durability: a write whose promise resolved must survive `kill -9` at any moment, and the file must
 * never be corrupted. A child process writes in a tight loop and reports each acknowledged write; we
 * SIGKILL it mid-stream three times (at different moments) and check the reopened database each time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SqliteDocumentStore } from '@app/storage';

const ROOT = join(__dirname, '..', '..');
const WRITER = join(ROOT, 'test', 'fixtures', 'storage-crash-writer.ts');

interface Acked {
  inserted: string[];
  updated: string[];
  counter: number;
}

function runAndKill(file: string, tag: string, killAfter: number): Promise<Acked> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, tag], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: Acked = { inserted: [], updated: [], counter: 0 };
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (killed) return; // only what we saw before the kill counts as acknowledged
      const [kind, id, n] = line.split(' ');
      if (kind === 'ins') acked.inserted.push(id);
      else if (kind === 'upd') acked.updated.push(id);
      else if (kind === 'ctr') acked.counter = Number(n);
      if (acked.inserted.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' && killed) resolve(acked);
      else reject(new Error(`writer exited early (code ${code}, signal ${signal}): ${stderr}`));
    });
  });
}

describe('SqliteDocumentStore crash durability', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-crash-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['early', 320],
    ['middle', 613],
    ['late', 1157],
  ])('every acknowledged write survives kill -9 (%s, after %i inserts)', async (tag, killAfter) => {
    const file = join(dir, 'crash.db'); // shared: each run also recovers from the previous crash
    const acked = await runAndKill(file, tag, killAfter);
    expect(acked.inserted.length).toBeGreaterThanOrEqual(killAfter);

    const store = SqliteDocumentStore.open({ file });
    try {
      const integrity = store.db.prepare('PRAGMA integrity_check').all() as Array<{ integrity_check: string }>;
      expect(integrity).toEqual([{ integrity_check: 'ok' }]);

      const docs = await store.collection({
        name: 'docs',
        indexes: [{ fields: { seq: 1 } }, { fields: { key: 1 }, unique: true }],
      });
      const counters = await store.collection({
        name: 'counters',
        indexes: [],
      });
      const present = new Set<string>();
      for await (const d of docs.iterate({ _id: { $in: acked.inserted } }, { batchSize: 250 })) present.add(d._id);
      const missing = acked.inserted.filter((id) => !present.has(id));
      expect(missing).toEqual([]);
      expect(await docs.count({ _id: { $in: acked.updated }, updated: true })).toBe(acked.updated.length);
      // At most one unacknowledged write may have landed after the last acknowledged one.
      const counter = await counters.findOne({ _id: tag });
      expect(counter!.n as number).toBeGreaterThanOrEqual(acked.counter);
      expect(counter!.n as number).toBeLessThanOrEqual(acked.counter + 1);
      // Index and table agree after recovery.
      expect(await docs.count({ seq: { $gte: 0 } })).toBe(await docs.count({}));
    } finally {
      await store.close();
    }
  });
});
