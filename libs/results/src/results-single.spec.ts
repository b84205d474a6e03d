import { loadConfig } from '@app/config';
import type { JobRecord, JobsRepository, JobsService } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import { SqliteDocumentStore } from '@app/storage';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultsRepository } from './results.repository';
import { ResultsService } from './results.service';

/**
 * The result of a one-page job (extract, analyze, scrape) on a real (SQLite) store: announced with no
 * lookup of an earlier announcement when it was stored just now, with one when it was found stored (a run
 * redone after a crash); the synchronous answer reads it from the job record in hand.
 */
describe('ResultsService: one-page results', () => {
  let store: SqliteDocumentStore;
  let repository: ResultsRepository;
  let service: ResultsService;
  let publishResult: jest.Mock;
  let getRecord: jest.Mock;
  const job = { _id: 'job-1', user_id: 'user-1', type: 'extract', capture_debug: false } as unknown as JobRecord;
  const completed = (name: string) => ({ url: 'https://a.example/', status: 'completed' as const, data: { name } });

  beforeEach(async () => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    repository = new ResultsRepository(store);
    await repository.onModuleInit();
    const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'gleaner-results-')) });
    publishResult = jest.fn().mockResolvedValue(true);
    getRecord = jest.fn().mockResolvedValue(job);
    const jobs = { publishResult, getRecord } as unknown as JobsService;
    service = ResultsService.of({ repository, jobs: jobs, jobsRepository: {} as JobsRepository, config, logger: {} as AppLogger });
  });
  afterEach(() => store.close());

  it('announces a result stored just now as a first announcement, and one found stored with the lookup', async () => {
    const first = await service.record(job, completed('first'));
    const redone = await service.record(job, completed('redone'));
    expect(redone).toMatchObject({ id: first.id, data: { name: 'first' } });
    expect(publishResult.mock.calls.map((call: unknown[]) => call[2])).toEqual([
      { dedupeKey: expect.stringMatching(/^result:job-1:p:/) as unknown, firstTime: true },
      { dedupeKey: expect.stringMatching(/^result:job-1:p:/) as unknown, firstTime: false },
    ]);
  });

  it('firstOf answers from the job record in hand without reading the job again', async () => {
    await service.record(job, completed('only'));
    const item = await service.firstOf(job);
    expect(item).toMatchObject({ status: 'completed', data: { name: 'only' } });
    expect(getRecord).not.toHaveBeenCalled();
    // first(caller, id) still checks the owner of a job named by the caller.
    await service.first({ userId: 'user-1' } as never, job._id);
    expect(getRecord).toHaveBeenCalledTimes(1);
  });

  it('firstOf answers the page a retried run completed, not the failure an earlier run stored first', async () => {
    const failed = { url: 'https://a.example/', status: 'failed' as const, data: null, error_category: 'fetch_error' as const };
    await service.record(job, { ...failed, error_message: 'The site answered 503.' });
    await service.record(job, completed('retried'));
    await service.record(job, { ...failed, error_message: 'A later run failed.' });
    expect(await service.firstOf(job)).toMatchObject({ status: 'completed', data: { name: 'retried' } });
  });

  it('firstOf answers the first failure when no run completed the page, so the caller can answer it', async () => {
    const failed = { url: 'https://a.example/', status: 'failed' as const, data: null, error_category: 'timeout' as const };
    await service.record(job, { ...failed, error_message: 'first' });
    await service.record(job, { ...failed, error_message: 'second' });
    expect(await service.firstOf(job)).toMatchObject({ status: 'failed', error_category: 'timeout', error_message: 'first' });
    expect(await service.firstOf({ ...job, _id: 'job-without-results' })).toBeNull();
  });
});

describe('ResultsService: the result of a job its run started', () => {
  let store: SqliteDocumentStore;
  let repository: ResultsRepository;
  let service: ResultsService;
  const job = { _id: 'job-2', user_id: 'user-1', type: 'extract', capture_debug: false } as unknown as JobRecord;
  const completed = (name: string) => ({ url: 'https://a.example/', status: 'completed' as const, data: { name } });

  beforeEach(async () => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    repository = new ResultsRepository(store);
    await repository.onModuleInit();
    const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'gleaner-results-')) });
    const jobs = { publishResult: jest.fn().mockResolvedValue(true) } as unknown as JobsService;
    service = ResultsService.of({ repository, jobs: jobs, jobsRepository: {} as JobsRepository, config, logger: {} as AppLogger });
  });
  afterEach(() => store.close());

  it('is stored without looking for one of an earlier run, and a second store still finds the first', async () => {
    const lookups = jest.spyOn(repository, 'findById');
    const first = await service.record(job, completed('first'), { startedNow: true });
    expect(lookups).not.toHaveBeenCalled();
    // Two runs that both took the job as started (a store stand-in can hand one post-image to two updates).
    const second = await service.record(job, completed('second'), { startedNow: true });
    expect(second).toMatchObject({ id: first.id, data: { name: 'first' } });
    // A resumed job looks first.
    await service.record(job, completed('resumed'));
    expect(lookups).toHaveBeenCalledTimes(1);
  });
});
