import { Injectable } from '@nestjs/common';
import { parseReextractInput } from '../crawl-input';
import { CrawlEngineJobHandler } from './crawl-engine-job.handler';

/**
 * Runs a `reextract` job: the crawl engine over another job's archived pages (docs/archive.md
 * "Re-extraction"). The same owner, page workers, commit order, crawl map, results, events, webhooks,
 * learned programs and cost cap as a crawl; the seeding source (owner/archive-seeding.ts) and the page
 * workers' read from the archive differ. No request reaches a site.
 */
@Injectable()
export class ReextractJobHandler extends CrawlEngineJobHandler {
  readonly type = 'reextract';
  readonly parseInput = parseReextractInput;
}
