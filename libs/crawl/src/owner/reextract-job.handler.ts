import { Injectable } from '@nestjs/common';
import type { JobContext, JobHandler, JobRecord } from '@app/jobs';
import { parseReextractInput, type CrawlJobInput } from '../crawl-input';
import { CrawlJobHandler } from './crawl-job.handler';

/**
 * Runs a `reextract` job: the crawl engine over another job's archived pages (docs/archive.md
 * "Re-extraction"). The same owner, page workers, commit order, crawl map, results, events, webhooks,
 * learned programs and cost cap as a crawl; the seeding source (owner/archive-seeding.ts) and the page
 * workers' read from the archive differ. No request reaches a site.
 */
@Injectable()
export class ReextractJobHandler implements JobHandler<CrawlJobInput> {
  readonly type = 'reextract';
  readonly parseInput = parseReextractInput;

  constructor(private readonly crawls: CrawlJobHandler) {}

  run(context: JobContext<CrawlJobInput>): Promise<void> {
    return this.crawls.run(context);
  }

  onTerminal(job: JobRecord): Promise<void> {
    return this.crawls.onTerminal(job);
  }
}
