/**
 * The answer of a one-page job (POST /scrape, /extract, a Firecrawl scrape) is its first completed result, else its
 * first result (ResultsRepository.firstOwn): a run that failed stored its page's failure before the retry stored the
 * completed page, and the answer is the page. Written through ResultsService as the job handlers write, read back
 * as the answers read, on each store.
 */
import { loadConfig } from '@app/config';
import type { JobRecord, JobsRepository, JobsService } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import { ResultsRepository, ResultsService, type RecordResultInput } from '@app/results';
import type { DocumentStore } from '@app/storage';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let jobs = 0;
const oneJob = (type = 'scrape') => {
  jobs += 1;
  return {
    _id: `job-${jobs}-${Math.random().toString(36).slice(2, 7)}`,
    user_id: 'user-1',
    type,
    capture_debug: false,
  } as unknown as JobRecord;
};
const failed = (message: string, category: 'fetch_error' | 'timeout' = 'fetch_error'): RecordResultInput => ({
  url: 'https://a.example/',
  status: 'failed',
  data: null,
  error_category: category,
  error_message: message,
});
const completed = (name: string): RecordResultInput => ({ url: 'https://a.example/', status: 'completed', data: { name } });

export function firstResultContract(
  name: string,
  makeStore: () => Promise<DocumentStore>,
  dispose: (store: DocumentStore) => Promise<void>,
): void {
  describe(`The first result of a one-page job: ${name}`, () => {
    let store: DocumentStore;
    let service: ResultsService;

    beforeAll(async () => {
      store = await makeStore();
      const repository = new ResultsRepository(store);
      await repository.onModuleInit();
      const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'gleaner-first-result-')) });
      const events = { publishResult: jest.fn().mockResolvedValue(true) } as unknown as JobsService;
      service = ResultsService.of({ repository, jobs: events, jobsRepository: {} as JobsRepository, config, logger: {} as AppLogger });
    });
    afterAll(() => dispose(store));

    it('is the page a retried run completed, not the failure an earlier run stored first', async () => {
      for (const type of ['scrape', 'extract']) {
        const job = oneJob(type);
        await service.record(job, failed('The site answered 503.'));
        await service.record(job, failed('The page did not load within 30 s.', 'timeout'));
        await service.record(job, completed('retried'), { startedNow: true });
        // A run of the job after it (a lease lost and taken again) that failed: the page stays the answer.
        await service.record(job, failed('A later run failed.'));
        expect([type, await service.firstOf(job)]).toEqual([
          type,
          expect.objectContaining({ status: 'completed', data: { name: 'retried' } }),
        ]);
      }
    });

    it('is the first failure when no run completed the page, and nothing for a job without results', async () => {
      const job = oneJob();
      await service.record(job, failed('first', 'timeout'));
      await service.record(job, failed('second'));
      expect(await service.firstOf(job)).toMatchObject({ status: 'failed', error_category: 'timeout', error_message: 'first' });
      expect(await service.firstOf(oneJob())).toBeNull();
    });

    it('is the owner’s: the same job id of another user answers nothing', async () => {
      const job = oneJob();
      await service.record(job, failed('failed'));
      await service.record(job, completed('page'));
      expect(await service.firstOf({ ...job, user_id: 'user-2' })).toBeNull();
    });
  });
}
