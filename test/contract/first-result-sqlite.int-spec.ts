import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import { firstResultContract } from './first-result.contract';

let dir = '';

firstResultContract(
  'sqlite',
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-first-result-'));
    return SqliteDocumentStore.open({ file: join(dir, 'store.db') });
  },
  async (store) => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  },
);
