import { loadConfig } from '@app/config';
import type { JobRecord, JobsRepository, JobsService } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import { SqliteDocumentStore } from '@app/storage';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultRecord } from './result.types';
import { ResultsRepository } from './results.repository';
import { ResultsService } from './results.service';

/**
 * storePage on a real (SQLite) store: a page's result is stored once, and a result seq that another
 * writer already holds (the counter of a store that is not atomic under concurrency can hand one out
 * twice) is never mistaken for "this page is already stored".
 */
describe('ResultsService.storePage', () => {
  let store: SqliteDocumentStore;
  let repository: ResultsRepository;
  let service: ResultsService;
  const job = { _id: 'job-1', user_id: 'user-1', type: 'crawl', capture_debug: false } as unknown as JobRecord;
  const page = (url: string) => ({ url, status: 'completed' as const, data: { name: url }, depth: 1, parent_url: null });

  beforeEach(async () => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    repository = new ResultsRepository(store);
    await repository.onModuleInit();
    const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'gleaner-results-')) });
    service = ResultsService.of({
      repository,
      jobs: {} as JobsService,
      jobsRepository: {} as JobsRepository,
      config,
      logger: {} as AppLogger,
    });
  });
  afterEach(() => store.close());

  it('stores a page once: a second store of the same page returns the first record', async () => {
    const first = await service.storePage(job, 'k1', page('https://a.example/1'));
    const again = await service.storePage(job, 'k1', page('https://a.example/1-redone'));
    expect(again).toMatchObject({ _id: first._id, id: first.id, url: 'https://a.example/1', seq: 1 });
    expect(await repository.findById(first._id)).toMatchObject({ id: first.id });
  });

  it('firstTime skips the lookup before the insert; a repeat all the same returns the first record (a seq gap, no second record)', async () => {
    let lookups = 0;
    const findById = repository.findById.bind(repository);
    repository.findById = (id) => (lookups++, findById(id));
    const first = await service.storePage(job, 'k3', page('https://a.example/3'), { firstTime: true });
    expect(lookups).toBe(0);
    const again = await service.storePage(job, 'k3', page('https://a.example/3-redone'), { firstTime: true });
    expect(again).toMatchObject({ _id: first._id, id: first.id, url: 'https://a.example/3', seq: first.seq });
    const next = await service.storePage(job, 'k4', page('https://a.example/4'), { firstTime: true });
    expect(next.seq).toBe(first.seq + 2);
    const all: ResultRecord[] = [];
    for await (const record of repository.iterateOwn({ userId: job.user_id }, job._id)) all.push(record);
    expect(all.map((r) => r.url)).toEqual(['https://a.example/3', 'https://a.example/4']);
  });

  it('draws a new seq when the one it got is already taken, and really stores the page', async () => {
    // Another writer holds seq 1 and 2 while the counter still stands at 0 (what a non-atomic counter allows).
    for (const seq of [1, 2]) {
      await repository.insert({ _id: `other-${seq}`, id: `other-${seq}`, job_id: job._id, user_id: job.user_id, seq } as ResultRecord);
    }
    const stored = await service.storePage(job, 'k2', page('https://a.example/2'));
    expect(stored.seq).toBe(3);
    expect(await repository.findById(stored._id)).toMatchObject({ id: stored.id, url: 'https://a.example/2', seq: 3 });
  });

  describe('storePages (a crawl owner’s commit batch)', () => {
    it('stores new pages with one seq draw and one insert, in order', async () => {
      const calls: string[] = [];
      for (const name of ['findById', 'findByIds', 'nextSeq', 'nextSeqs', 'insertMany', 'insertOnce'] as const) {
        const original = (repository[name] as (...a: unknown[]) => unknown).bind(repository);
        (repository as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => (calls.push(name), original(...args));
      }
      const stored = await service.storePages(job, [
        { pageKey: 'a', input: page('https://a.example/a'), firstTime: true },
        { pageKey: 'b', input: page('https://a.example/b'), firstTime: true },
        { pageKey: 'c', input: page('https://a.example/c'), firstTime: true },
      ]);
      expect(stored.map((r) => [r._id, r.seq, r.url])).toEqual([
        ['job-1:p:a', 1, 'https://a.example/a'],
        ['job-1:p:b', 2, 'https://a.example/b'],
        ['job-1:p:c', 3, 'https://a.example/c'],
      ]);
      expect(calls).toEqual(['findByIds', 'nextSeqs', 'insertMany']);
      expect(await repository.nextSeq(job._id)).toBe(4);
    });

    it('a page stored before (a redo after a crash) returns its first record, firstTime or not; no second record', async () => {
      const first = await service.storePage(job, 'a', page('https://a.example/a'));
      const stored = await service.storePages(job, [
        { pageKey: 'a', input: page('https://a.example/a-redone'), firstTime: false },
        { pageKey: 'b', input: page('https://a.example/b'), firstTime: false },
      ]);
      expect(stored[0]).toMatchObject({ _id: first._id, id: first.id, url: 'https://a.example/a', seq: 1 });
      expect(stored[1]).toMatchObject({ _id: 'job-1:p:b', seq: 2 });
      // firstTime all the same: the insert refuses the repeat, the first record comes back (a seq gap).
      const again = await service.storePages(job, [{ pageKey: 'b', input: page('https://a.example/b-redone'), firstTime: true }]);
      expect(again[0]).toMatchObject({ _id: 'job-1:p:b', id: stored[1].id, url: 'https://a.example/b', seq: 2 });
      const all: ResultRecord[] = [];
      for await (const record of repository.iterateOwn({ userId: job.user_id }, job._id)) all.push(record);
      expect(all.map((r) => r.url)).toEqual(['https://a.example/a', 'https://a.example/b']);
    });

    it('seqs another writer holds (a stale post-image of the draw) are drawn anew: every page really stored', async () => {
      for (const seq of [1, 2]) {
        await repository.insert({ _id: `other-${seq}`, id: `other-${seq}`, job_id: job._id, user_id: job.user_id, seq } as ResultRecord);
      }
      const stored = await service.storePages(job, [
        { pageKey: 'x', input: page('https://a.example/x'), firstTime: true },
        { pageKey: 'y', input: page('https://a.example/y'), firstTime: true },
        { pageKey: 'z', input: page('https://a.example/z'), firstTime: true },
      ]);
      for (const record of stored) expect(await repository.findById(record._id)).toMatchObject({ id: record.id, seq: record.seq });
      const seqs = stored.map((r) => r.seq);
      expect(new Set([1, 2, ...seqs]).size).toBe(5);
    });
  });
});
