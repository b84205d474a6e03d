import { Injectable } from '@nestjs/common';
import { PageArchive } from '@app/archive';
import type { JobContext, JobHandler, JobRecord } from '@app/jobs';
import { parseWarcInput, type CrawlJobInput } from '../crawl-input';
import { CrawlJobHandler } from './crawl-job.handler';

/**
 * Runs a `warc-extract` job: the crawl engine over the HTML responses of an uploaded WARC file
 * (docs/archive.md "WARC in"), read into the archive by the owner (owner/warc-seeding.ts) and extracted
 * by the page workers from there. No request reaches a site.
 */
@Injectable()
export class WarcExtractJobHandler implements JobHandler<CrawlJobInput> {
  readonly type = 'warc-extract';
  readonly parseInput = parseWarcInput;

  constructor(
    private readonly crawls: CrawlJobHandler,
    private readonly archive: PageArchive,
  ) {}

  run(context: JobContext<CrawlJobInput>): Promise<void> {
    return this.crawls.run(context);
  }

  /** The upload is dropped once read; a job that ended before (cancelled) drops it here. */
  async onTerminal(job: JobRecord): Promise<void> {
    await this.crawls.onTerminal(job);
    let source: CrawlJobInput['source'];
    try {
      source = parseWarcInput(job.input).source;
    } catch {
      return; // an input that does not parse names no upload this process could drop
    }
    if (source?.kind === 'warc') await this.archive.dropUpload(source.upload_id);
  }
}
