import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import { ArchiveRepository, bodyId, keepCommand, type BodyReference, type KeptPage, type PageWrite } from './archive.repository';
import { ArchiveWriteBatch } from './archive-write-batch';
import type { ArchivedPageRecord } from './archive.types';
import { pageRecord } from '../../../test/support/archive-parts';

/** A page record whose body is `sha` (the write batch never reads the bytes). */
function record(jobId: string, key: string, sha: string): ArchivedPageRecord {
  return pageRecord('u1', jobId, key, Buffer.from('body'), { body_sha256: sha, body_bytes: 10, expires_at: new Date().toISOString() });
}

const creating = (sha: string, data = 'Ym9keQ=='): BodyReference => ({
  sha256: sha,
  create: { size: 4, stored_size: 4, encoding: 'br', stored: true, data },
});
const touching = (sha: string): BodyReference => ({ sha256: sha, create: null });
const page = (key: string, bodies: BodyReference[], jobId = 'j1'): PageWrite => ({
  record: record(jobId, key, bodies[0]?.sha256 ?? ''),
  userId: 'u1',
  bodies,
});
const kept = (n: number): KeptPage => ({ pageInserted: true, created: Array.from({ length: n }, () => true), missing: [] });

describe('ArchiveWriteBatch', () => {
  let writes: PageWrite[][];
  let fail: Error | null;
  let batch: ArchiveWriteBatch;
  const limits = { max: 4, maxBytes: 1000, minLingerMs: 20, maxLingerMs: 250 };

  beforeEach(() => {
    jest.useFakeTimers();
    writes = [];
    fail = null;
    batch = new ArchiveWriteBatch(
      async (pages) => {
        writes.push(pages);
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (fail) throw fail;
        return pages.map((p) => ({ ...kept(p.bodies.length), pageInserted: p.record.key !== 'again' }));
      },
      limits,
      () => Date.now(),
    );
  });
  afterEach(() => jest.useRealTimers());

  it('writes a page kept alone at once (an extract waits no linger)', async () => {
    const one = batch.keep(page('a', [creating('s1')]));
    await jest.advanceTimersByTimeAsync(0);
    expect(writes).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(5);
    await expect(one).resolves.toEqual(kept(1));
  });

  it('never lingers pages kept one after the other (a WARC seeding)', async () => {
    for (const key of ['a', 'b', 'c']) {
      const started = Date.now();
      const done = batch.keep(page(key, [touching('s1')]));
      await jest.advanceTimersByTimeAsync(5);
      await done;
      expect(Date.now() - started).toBe(5);
    }
    expect(writes.map((w) => w.length)).toEqual([1, 1, 1]);
  });

  it('pages kept at once share one write, each with its own result', async () => {
    const results = Promise.all([
      batch.keep(page('a', [creating('s1')])),
      batch.keep(page('again', [creating('s2'), touching('s3')])),
      batch.keep(page('c', [])),
    ]);
    await jest.advanceTimersByTimeAsync(300);
    expect(writes.map((w) => w.map((p) => p.record.key))).toEqual([['a', 'again', 'c']]);
    expect(await results).toEqual([kept(1), { ...kept(2), pageInserted: false }, kept(0)]);
  });

  it('pages coming while a batch is written form the next one, after their linger', async () => {
    const first = batch.keep(page('a', []));
    await jest.advanceTimersByTimeAsync(1);
    const later = [batch.keep(page('b', [])), batch.keep(page('c', []))];
    await jest.advanceTimersByTimeAsync(1);
    const last = batch.keep(page('d', []));
    await jest.advanceTimersByTimeAsync(4);
    await first;
    // The batch written: b, c and d linger (pages are kept at the same time) before theirs is written.
    expect(writes).toHaveLength(1);
    expect(batch.size).toBe(3);
    await jest.advanceTimersByTimeAsync(250);
    await Promise.all([...later, last]);
    expect(writes.map((w) => w.length)).toEqual([1, 3]);
  });

  it('a full batch (pages or bytes) is written without its linger', async () => {
    const first = batch.keep(page('a', []));
    await jest.advanceTimersByTimeAsync(1);
    const full = Array.from({ length: 4 }, (_, i) => batch.keep(page(`p${i}`, [])));
    await jest.advanceTimersByTimeAsync(4);
    await first;
    // (A timer of 0 ms set while fake time advances is due 1 ms later.)
    await jest.advanceTimersByTimeAsync(1);
    expect(writes.map((w) => w.length)).toEqual([1, 4]);
    await jest.advanceTimersByTimeAsync(5);
    await Promise.all(full);
    const heavy = [batch.keep(page('h1', [])), batch.keep(page('h2', [creating('big', 'x'.repeat(1000))]))];
    await jest.advanceTimersByTimeAsync(0);
    expect(writes.map((w) => w.length)).toEqual([1, 4, 2]);
    await jest.advanceTimersByTimeAsync(5);
    await Promise.all(heavy);
  });

  it("a failed write fails every page of its batch, and only that batch's", async () => {
    fail = new Error('store down');
    const failed = [batch.keep(page('a', [])), batch.keep(page('b', []))].map((p) =>
      p.then(
        () => 'kept',
        (e: Error) => e.message,
      ),
    );
    await jest.advanceTimersByTimeAsync(300);
    expect(await Promise.all(failed)).toEqual(['store down', 'store down']);
    fail = null;
    const next = batch.keep(page('c', []));
    await jest.advanceTimersByTimeAsync(300);
    await expect(next).resolves.toEqual(kept(0));
  });

  it('drain writes what waits at once', async () => {
    const first = batch.keep(page('a', []));
    const second = batch.keep(page('b', []));
    const drained = batch.drain();
    await jest.advanceTimersByTimeAsync(5);
    await drained;
    await Promise.all([first, second]);
    expect(writes.map((w) => w.length)).toEqual([2]);
  });
});

describe('keepCommand (one command for many pages)', () => {
  it('writes every record first, then each body once however many pages name it', () => {
    const command = keepCommand(
      [page('a', [touching('s1'), creating('s2')]), page('b', [creating('s1')]), page('a', [creating('s2')])],
      '2026-01-01T00:00:00.000Z',
      () => 't',
    );
    expect(command.entries.map((e) => [e._id, e.upsert !== false])).toEqual([
      ['j1:a', true],
      ['j1:b', true],
      [bodyId('u1', 's1'), true],
      [bodyId('u1', 's2'), true],
    ]);
    // s1 was named touch-only by a, then with its bytes by b: b creates it, a's reference cannot be missing.
    const results = command.results({ inserted: [true, true, true, false], matched: 1 });
    expect(results).toEqual([
      { pageInserted: true, created: [false, false], missing: [] },
      { pageInserted: true, created: [true], missing: [] },
      { pageInserted: false, created: [false], missing: [] },
    ]);
  });

  it('when any touch-only entry found nothing, every touch-only reference of the command is missing', () => {
    const command = keepCommand([page('a', [touching('gone')]), page('b', [touching('there'), creating('new')])], 'now', () => 't');
    // Five entries: two records inserted, `new` inserted, one of the two touches found nothing.
    const results = command.results({ inserted: [true, true, false, false, true], matched: 1 });
    expect(results.map((r) => r.missing)).toEqual([[0], [0]]);
    expect(command.results({ inserted: [true, true, false, false, true], matched: 2 }).map((r) => r.missing)).toEqual([[], []]);
  });
});

describe('ArchiveRepository.keepPages on the embedded store', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let repository: ArchiveRepository;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-archive-batch-'));
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    repository = await ArchiveRepository.open(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two pages of one body in one command: the body is created once, by the first, and both find it', async () => {
    const results = await repository.keepPages([
      page('a', [creating('same')]),
      page('b', [creating('same')]),
      page('a', [creating('same')]),
    ]);
    expect(results).toEqual([
      { pageInserted: true, created: [true], missing: [] },
      { pageInserted: true, created: [false], missing: [] },
      { pageInserted: false, created: [false], missing: [] },
    ]);
    expect(await repository.blob('u1', 'same')).toMatchObject({ kind: 'body', stored: true, data: 'Ym9keQ==' });
    expect(await repository.page('u1', 'j1', 'b')).toMatchObject({ body_sha256: 'same' });
  });

  it('a touch of a body that is gone makes every touch-only reference of the command missing, and creates nothing', async () => {
    await repository.keepPages([page('seed', [creating('there')])]);
    const results = await repository.keepPages([
      page('a', [touching('gone')]),
      page('b', [touching('there')]),
      page('c', [creating('new')]),
    ]);
    expect(results.map((r) => r.missing)).toEqual([[0], [0], []]);
    expect(results[2].created).toEqual([true]);
    expect(await repository.blob('u1', 'gone')).toBeNull();
    // All found: nothing missing.
    const again = await repository.keepPages([page('d', [touching('there')]), page('e', [touching('new')])]);
    expect(again.map((r) => r.missing)).toEqual([[], []]);
  });
});
