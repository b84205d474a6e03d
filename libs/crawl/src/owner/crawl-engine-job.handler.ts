import { Injectable } from '@nestjs/common';
import type { JobContext, JobHandler, JobRecord, JobType } from '@app/jobs';
import type { CrawlJobInput } from '../crawl-input';
import { CrawlJobHandler } from './crawl-job.handler';

/**
 * A job type the crawl engine runs as it runs a crawl (batch, reextract): its own type and input, the crawl's
 * owner, parts and end; the input names the seeding source the crawl then uses.
 */
@Injectable()
export abstract class CrawlEngineJobHandler implements JobHandler<CrawlJobInput> {
  abstract readonly type: JobType;
  abstract readonly parseInput: (raw: unknown) => CrawlJobInput;

  constructor(private readonly crawls: CrawlJobHandler) {}

  run(context: JobContext<CrawlJobInput>): Promise<void> {
    return this.crawls.run(context);
  }

  onTerminal(job: JobRecord): Promise<void> {
    return this.crawls.onTerminal(job);
  }
}
