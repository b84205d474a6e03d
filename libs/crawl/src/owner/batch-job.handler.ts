import { Injectable } from '@nestjs/common';
import { parseBatchInput } from '../crawl-input';
import { CrawlEngineJobHandler } from './crawl-engine-job.handler';

/**
 * Runs a `batch` job: the crawl engine with its URLs from a list (docs/crawl.md "Batches"). The same
 * owner and parts as a crawl; only the seeding source differs (owner/list-seeding.ts), chosen by the input.
 */
@Injectable()
export class BatchJobHandler extends CrawlEngineJobHandler {
  readonly type = 'batch';
  readonly parseInput = parseBatchInput;
}
