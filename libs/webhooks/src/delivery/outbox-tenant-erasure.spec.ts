import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import { OutboxRepository, type OutboxItem } from './outbox.repository';

const item = (userId: string, jobId: string, seq: number): OutboxItem => ({
  _id: `${jobId}:t:${seq}`,
  stream: `${jobId}:t`,
  job_id: jobId,
  user_id: userId,
  target_key: 't',
  webhook_id: null,
  seq,
  dedupe_key: `#${seq}`,
  event_type: 'job.page',
  body: '{}',
  status: 'pending',
  attempts: 0,
  next_at: '2026-01-01T00:00:00.000Z',
  created_at: '2026-01-01T00:00:00.000Z',
});

describe('OutboxRepository.deleteAllOf (a tenant deletion: its pending deliveries and their streams)', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let outbox: OutboxRepository;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-outbox-erasure-'));
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    outbox = new OutboxRepository(store);
    await outbox.onModuleInit();
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("deletes the tenant's items and streams in batches, and nothing of another tenant", async () => {
    for (const [userId, jobId] of [
      ['u1', 'j1'],
      ['u1', 'j2'],
      ['u2', 'j3'],
    ]) {
      for (let n = 0; n < 3; n++) await outbox.insertOnce(item(userId, jobId, await outbox.nextSeq(`${jobId}:t`)));
    }
    expect(await outbox.deleteAllOf({ userId: 'u1' }, 2)).toBe(6);
    expect(await outbox.head('j1:t')).toBeNull();
    expect(await outbox.head('j2:t')).toBeNull();
    const streams = await store.collection({ name: 'webhook_streams', indexes: [] });
    expect((await streams.find({})).map((s) => s._id)).toEqual(['j3:t']);
    expect(await outbox.head('j3:t')).toMatchObject({ user_id: 'u2', seq: 1 });
    expect(await outbox.deleteAllOf({ userId: 'u1' })).toBe(0);
  });
});
