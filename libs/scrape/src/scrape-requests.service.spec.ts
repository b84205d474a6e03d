import { AppError, PROBLEMS } from '@app/core';
import type { JobIntakeService } from '@app/intake';
import type { ResultItem, ResultsService, ScreenshotsService } from '@app/results';
import type { ScrapeRequestDto } from './dto/scrape-request.dto';
import { ScrapeRequestsService } from './scrape-requests.service';

/**
 * POST /scrape answers its job's page: the page a retried run completed (ResultsService.firstOf prefers it), and a
 * page that failed with its own failure (a fetch failure 502, a timeout 504), never a 500 for the site's failure.
 */
describe('ScrapeRequestsService: the answer of a finished scrape job', () => {
  const done = { _id: 'job-1', user_id: 'user-1', type: 'scrape', started_at: '2026-01-01T00:00:00.000Z' };
  const caller = { userId: 'user-1' } as never;
  const dto = { url: 'https://a.example/', formats: ['markdown'] } as ScrapeRequestDto;

  function service(item: ResultItem | null): ScrapeRequestsService {
    const intake = {
      authProfile: jest.fn().mockResolvedValue(undefined),
      submit: jest.fn().mockResolvedValue({ id: done._id }),
      awaitJob: jest.fn().mockResolvedValue(done),
    } as unknown as JobIntakeService;
    const results = { firstOf: jest.fn().mockResolvedValue(item) } as unknown as ResultsService;
    return new ScrapeRequestsService(intake, results, {} as ScreenshotsService);
  }
  const answerOf = (item: ResultItem | null) => service(item).scrape(caller, dto, 'req-1', {} as never);
  const problemOf = async (item: ResultItem | null): Promise<AppError> => {
    const error: unknown = await answerOf(item).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  };
  const failed = (category: 'fetch_error' | 'timeout', message: string): ResultItem => ({
    id: 'r1',
    url: dto.url,
    status: 'failed',
    data: null,
    error_category: category,
    error_message: message,
    metadata: { method: null },
    warnings: [],
  });

  it('answers the completed page with its formats', async () => {
    const page: ResultItem = {
      id: 'r2',
      url: dto.url,
      status: 'completed',
      data: { markdown: '# A' },
      metadata: { method: 'scrape' },
      warnings: [],
    };
    await expect(answerOf(page)).resolves.toMatchObject({ job_id: 'job-1', url: dto.url, data: { markdown: '# A' } });
  });

  it('answers a failed page with its own failure: 502 for the fetch, 504 for a timeout, with the job id', async () => {
    const fetch = await problemOf(failed('fetch_error', 'The site answered 503.'));
    expect([PROBLEMS[fetch.slug].status, fetch.message, fetch.extensions]).toEqual([502, 'The site answered 503.', { job_id: 'job-1' }]);
    const timeout = await problemOf(failed('timeout', 'The page did not load within 30 s.'));
    expect(PROBLEMS[timeout.slug].status).toBe(504);
  });

  it('answers a job without its page as Gleaner’s own failure (500)', async () => {
    expect(PROBLEMS[(await problemOf(null)).slug].status).toBe(500);
  });
});
