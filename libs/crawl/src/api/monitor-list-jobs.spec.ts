import type { AppConfig } from '@app/config';
import { AppError } from '@app/core';
import type { JobsService } from '@app/jobs';
import type { CrawlRepository } from '../crawl.repository';
import { CrawlMonitorListJobs } from './monitor-list-jobs';

describe('CrawlMonitorListJobs.check (a list monitor’s URLs, by the batch rules)', () => {
  const jobs = (max: number) => new CrawlMonitorListJobs({} as CrawlRepository, {} as JobsService, { batchMaxUrls: max } as AppConfig);
  const problem = (fn: () => unknown): AppError => {
    try {
      fn();
    } catch (error) {
      if (error instanceof AppError) return error;
    }
    throw new Error('no AppError thrown');
  };

  it('keeps the list canonical and distinct, in the order given', () => {
    expect(
      jobs(10).check(['https://s.example/p/2', 'HTTPS://S.example/p/1#top', 'https://s.example:443/p/2', 'https://s.example/p/1']),
    ).toEqual({
      urls: ['https://s.example/p/2', 'https://s.example/p/1'],
      duplicates: 2,
    });
  });

  it('refuses an invalid URL at its index, and more distinct URLs than GLEANER_BATCH_MAX_URLS', () => {
    expect(problem(() => jobs(10).check(['https://s.example/', 'ftp://s.example/x', 'nope'])).errors?.map((e) => e.location)).toEqual([
      'body.urls[1]',
      'body.urls[2]',
    ]);
    expect(problem(() => jobs(1).check(['https://s.example/a', 'https://s.example/b'])).errors).toEqual([
      { location: 'body.urls', message: expect.stringMatching(/at most 1 distinct URLs/) },
    ]);
  });
});
