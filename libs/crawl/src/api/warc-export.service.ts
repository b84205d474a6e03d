import { Inject, Injectable } from '@nestjs/common';
import { PageArchive, writeWarc, type WarcPage } from '@app/archive';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsService, type JobRecord } from '@app/jobs';
import { ResultsService } from '@app/results';
import { readAhead } from './read-ahead';

export interface WarcDownload {
  filename: string;
  chunks: AsyncIterable<Uint8Array>;
}

/**
 * GET /jobs/{id}/warc (docs/archive.md "WARC out"): the job's archived pages as a WARC/1.1 file, one
 * gzip member per record, written as it streams (one page in memory at a time). A page whose body is
 * gone (expired between the listing and the read) is left out.
 */
@Injectable()
export class WarcExportService {
  constructor(
    private readonly jobs: JobsService,
    private readonly results: ResultsService,
    private readonly archive: PageArchive,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The first page is read before this answers: a store that cannot be read (an outage of the records or of
   * the blobs) is then a 503 problem, not a download cut after its first bytes. Later, the status is sent.
   */
  async export(caller: Caller, jobId: string): Promise<WarcDownload> {
    const job = await this.jobs.getRecord(caller, jobId);
    const filename = `gleaner-${job._id}.warc.gz`;
    return {
      filename,
      chunks: writeWarc(
        { jobId: job._id, jobType: job.type, software: `Gleaner ${this.config.version}`, filename },
        await readAhead(this.pages(caller, job)),
      ),
    };
  }

  private async *pages(caller: Caller, job: JobRecord): AsyncGenerator<WarcPage> {
    for await (const record of this.archive.jobPages(caller.userId, job._id)) {
      if (record.failure) continue;
      const page = await this.archive.load(caller.userId, job._id, record.key);
      if (!page) continue;
      const result = await this.results.pageRecord(job, record.key);
      yield { ...page, result: result ? { id: result.id, status: result.status, url: result.url } : null };
    }
  }
}
