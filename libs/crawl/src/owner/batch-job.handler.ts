import { Injectable } from '@nestjs/common';
import type { JobContext, JobHandler, JobRecord } from '@app/jobs';
import { parseBatchInput, type CrawlJobInput } from '../crawl-input';
import { CrawlJobHandler } from './crawl-job.handler';

/**
 * Runs a `batch` job: the crawl engine with its URLs from a list (docs/crawl.md "Batches"). The same
 * owner and parts as a crawl; only the seeding source differs (owner/list-seeding.ts), chosen by the input.
 */
@Injectable()
export class BatchJobHandler implements JobHandler<CrawlJobInput> {
  readonly type = 'batch';
  readonly parseInput = parseBatchInput;

  constructor(private readonly crawls: CrawlJobHandler) {}

  run(context: JobContext<CrawlJobInput>): Promise<void> {
    return this.crawls.run(context);
  }

  onTerminal(job: JobRecord): Promise<void> {
    return this.crawls.onTerminal(job);
  }
}
