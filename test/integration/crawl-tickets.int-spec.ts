/**
 * Admission tickets (max_pages) in the crawl state, on both stores: reserved in blocks, never past
 * max_pages, fenced by the owner's epoch, and counted exactly under concurrent reservations (the
 * MongoDB-wire stand-in may return one post-image to two concurrent increments, which is why the
 * owner numbers its tickets itself instead of reading them from the store).
 */
import { StoreDeliveryLedger } from '@app/queue';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CrawlRepository } from '../../libs/crawl/src/crawl.repository';
import { MongoDocumentStore, SqliteDocumentStore, type DocumentStore } from '@app/storage';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';

function ticketCases(open: () => Promise<DocumentStore>): void {
  let store: DocumentStore;
  let repository: CrawlRepository;
  let n = 0;

  beforeAll(async () => {
    store = await open();
    repository = new CrawlRepository(store, await StoreDeliveryLedger.open(store));
    await repository.onModuleInit();
  });

  afterAll(async () => {
    await store.close();
  });

  /** A new crawl state, owned at epoch 1. */
  async function owned(): Promise<string> {
    const jobId = `job_tickets_${++n}`;
    await repository.states.ensureState(jobId, 'user_1');
    expect(await repository.states.acquire(jobId, 'worker-a', 10_000)).toMatchObject({ epoch: 0 });
    return jobId;
  }

  it('reserves blocks up to max_pages and never past it', async () => {
    const jobId = await owned();
    expect(await repository.states.reserveTickets(jobId, 1, 16, 20)).toBe(true);
    expect(await repository.states.reserveTickets(jobId, 1, 16, 20)).toBe(false); // 4 left
    expect(await repository.states.reserveTickets(jobId, 1, 4, 20)).toBe(true);
    expect(await repository.states.reserveTickets(jobId, 1, 1, 20)).toBe(false);
    expect((await repository.states.state(jobId))?.admitted).toBe(20);
  });

  it('refuses a stale epoch and leaves the counter alone', async () => {
    const jobId = await owned();
    expect(await repository.states.reserveTickets(jobId, 1, 3, 10)).toBe(true);
    // Another worker takes over (the lease ran out): epoch 2.
    expect(await repository.states.acquire(jobId, 'worker-b', 10_000, Date.now() + 60_000)).toMatchObject({ epoch: 1, owner: 'worker-a' });
    expect(await repository.states.reserveTickets(jobId, 1, 1, 10)).toBe(false);
    expect((await repository.states.state(jobId))?.admitted).toBe(3);
    expect(await repository.states.reserveTickets(jobId, 2, 1, 10)).toBe(true);
    expect((await repository.states.state(jobId))?.admitted).toBe(4);
  });

  it('of 50 concurrent single reservations under max_pages 10, exactly 10 succeed', async () => {
    const jobId = await owned();
    const granted = await Promise.all(Array.from({ length: 50 }, () => repository.states.reserveTickets(jobId, 1, 1, 10)));
    expect(granted.filter(Boolean)).toHaveLength(10);
    expect((await repository.states.state(jobId))?.admitted).toBe(10);
  });
}

describe('crawl admission tickets on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-tickets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  ticketCases(async () => SqliteDocumentStore.open({ file: join(dir, 'store.db') }));
});

describeWith(['mongodb'], 'crawl admission tickets on MongoDB', () => {
  const dbName = uniqueDbName('gleaner_tickets');
  ticketCases(() => MongoDocumentStore.connect(serverUrl('mongodb')!, { dbName }));
});
