import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import { duplicateRaceContract } from './duplicate-index.contract';

let dir = '';

duplicateRaceContract(
  'sqlite',
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-dedup-race-'));
    // `normal`: no fsync per commit (hundreds of schedules; durability is not what is tested here).
    return SqliteDocumentStore.open({ file: join(dir, 'store.db'), synchronous: 'normal' });
  },
  async (store) => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  },
  // 128 schedules, as on MongoDB.
  7,
);
