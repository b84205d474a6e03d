import { Injectable } from '@nestjs/common';
import { AppError } from '@app/core';
import type { JobContext, JobHandler } from '@app/jobs';
import { parseCrawlInput, type CrawlJobInput } from './crawl-input';

/** Runs a `crawl` job: the crawl actor owns the crawl while this handler runs. */
@Injectable()
export class CrawlJobHandler implements JobHandler<CrawlJobInput> {
  readonly type = 'crawl';
  readonly parseInput = parseCrawlInput;

  run(_context: JobContext<CrawlJobInput>): Promise<void> {
    return Promise.reject(new AppError('internal-error', 'crawl engine not wired yet', { category: 'internal', retryable: false }));
  }
}
