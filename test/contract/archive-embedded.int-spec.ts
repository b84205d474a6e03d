import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileBlobStore } from '@app/archive';
import { SqliteDocumentStore } from '@app/storage';
import { archiveContract } from './archive.contract';

const dirs = new Map<object, string>();

archiveContract(
  'embedded (SQLite records, files under DATA_DIR/archive)',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-archive-'));
    const parts = { store: SqliteDocumentStore.open({ file: join(dir, 'gleaner.db') }), blobs: new FileBlobStore(join(dir, 'archive')) };
    dirs.set(parts, dir);
    return parts;
  },
  async (parts) => {
    await parts.blobs.close();
    await parts.store.close();
    const dir = dirs.get(parts);
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
);

describe('file blob store (embedded)', () => {
  it('writes into a fan-out directory removed behind its back (made again)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-blobs-'));
    try {
      const blobs = new FileBlobStore(join(dir, 'archive'));
      await blobs.write('blob0000aa', Buffer.from('first'));
      rmSync(join(dir, 'archive', 'aa'), { recursive: true, force: true });
      await blobs.write('blob0001aa', Buffer.from('second'));
      expect((await blobs.read('blob0001aa'))?.toString()).toBe('second');
      expect(await blobs.read('blob0000aa')).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
