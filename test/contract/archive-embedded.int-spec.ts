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
