import { SqliteDocumentStore } from '@app/storage';
import type { JobRecord } from './job.types';
import { JobsRepository } from './jobs.repository';

/**
 * appendEvent on a real (SQLite) store: an event seq that another writer already holds (the counter
 * of a store that is not atomic under concurrency can hand one out twice) is never mistaken for "this
 * event is already stored", while a real duplicate (same dedupe key) is still stored once.
 */
describe('JobsRepository.appendEvent', () => {
  let store: SqliteDocumentStore;
  let repository: JobsRepository;
  const jobId = 'job-1';

  beforeEach(async () => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    repository = new JobsRepository(store);
    await repository.onModuleInit();
    const jobs = await store.collection<JobRecord>({ name: 'jobs', indexes: [] });
    await jobs.insertOne({ _id: jobId, user_id: 'user-1', type: 'crawl', status: 'running', event_seq: 0 } as unknown as JobRecord);
  });
  afterEach(() => store.close());

  it('stores an event once per dedupe key', async () => {
    const first = await repository.appendEvent(jobId, 'result', { url: 'a' }, { dedupeKey: 'page:a', onlyWhileRunning: true });
    const again = await repository.appendEvent(jobId, 'result', { url: 'a' }, { dedupeKey: 'page:a', onlyWhileRunning: true });
    expect(first).toMatchObject({ seq: 1, dedupe_key: 'page:a' });
    expect(again).toBeNull();
    expect((await repository.eventsAfter(jobId, 0)).map((e) => e.seq)).toEqual([1]);
  });

  it('draws a new seq when the one it got is already taken, and really stores the event', async () => {
    // Another writer holds seq 1 and 2 while the job's counter still stands at 0 (what a non-atomic counter allows).
    const events = await store.collection<{ _id: string } & Record<string, unknown>>({ name: 'job_events', indexes: [] });
    for (const seq of [1, 2]) {
      await events.insertOne({
        _id: `${jobId}:${String(seq).padStart(10, '0')}`,
        job_id: jobId,
        seq,
        event: 'status',
        data: {},
        dedupe_key: `#${seq}`,
      });
    }
    const stored = await repository.appendEvent(jobId, 'result', { url: 'b' }, { dedupeKey: 'page:b', onlyWhileRunning: true });
    expect(stored).toMatchObject({ seq: 3, dedupe_key: 'page:b' });
    const plain = await repository.appendEvent(jobId, 'status', { n: 1 });
    expect(plain).toMatchObject({ seq: 4 });
    expect((await repository.eventsAfter(jobId, 0)).map((e) => [e.seq, e.event])).toEqual([
      [1, 'status'],
      [2, 'status'],
      [3, 'result'],
      [4, 'status'],
    ]);
  });

  it('with firstTime skips the lookup, yet a repeat is still stored once (its drawn seq stays a gap)', async () => {
    const first = await repository.appendEvent(
      jobId,
      'result',
      { url: 'c' },
      { dedupeKey: 'page:c', onlyWhileRunning: true, firstTime: true },
    );
    const repeat = await repository.appendEvent(
      jobId,
      'result',
      { url: 'c' },
      { dedupeKey: 'page:c', onlyWhileRunning: true, firstTime: true },
    );
    const next = await repository.appendEvent(jobId, 'status', { n: 1 });
    expect(first).toMatchObject({ seq: 1 });
    expect(repeat).toBeNull();
    expect(next).toMatchObject({ seq: 3 });
    expect((await repository.eventsAfter(jobId, 0)).map((e) => [e.seq, e.dedupe_key])).toEqual([
      [1, 'page:c'],
      [3, '#3'],
    ]);
  });
});
