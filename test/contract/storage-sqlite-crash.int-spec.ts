/**
 * Durability: a write whose promise resolved must survive `kill -9` at any moment, and the file must
 * never be corrupted. A child process writes round after round, reports each acknowledged write and
 * waits for a `go` before the next round; we answer `go` and SIGKILL it at once (so the kill lands
 * somewhere in that round), three times, and check the reopened database each time. The handshake
 * bounds what can be under way at the kill to one round, whatever the machine's load.
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
      stdio: ['pipe', 'pipe', 'pipe'],
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
      else if (kind === 'wait') {
        child.stdin.write('go\n');
        if (acked.inserted.length >= killAfter) {
          // The next round has been allowed; kill while it runs (or before it starts).
          killed = true;
          child.kill('SIGKILL');
        }
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
      // Only the round allowed by the last `go` can have landed unacknowledged.
      expect(await docs.findOne({ _id: `${tag}-${acked.inserted.length + 1}` })).toBeNull();
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
