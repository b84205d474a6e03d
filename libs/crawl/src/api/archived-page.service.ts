import { Injectable } from '@nestjs/common';
import { PageArchive } from '@app/archive';
import type { Caller } from '@app/auth';
import { AppError, Errors } from '@app/core';
import { JobsService } from '@app/jobs';
import { PageLoaderService } from '@app/pages';
import { pageKeyOf, ResultsService } from '@app/results';
import { archivedFetch } from '../archived-fetch';

export interface ArchivedPageBody {
  contentType: string;
  /** Suggested file name (raw view, as an attachment). */
  filename: string;
  body: Buffer;
  attachment: boolean;
}

/**
 * GET /jobs/{id}/results/{result_id}/page (docs/archive.md "Reading a page back"): the body a result
 * was extracted from, as it was fetched, or (`view=text`) the text the model saw, converted again
 * from it as the page worker did. Only a page of the caller's own job is found: a crawl-engine job's,
 * or an extract's that kept its page.
 */
@Injectable()
export class ArchivedPageService {
  constructor(
    private readonly jobs: JobsService,
    private readonly results: ResultsService,
    private readonly archive: PageArchive,
    private readonly loader: PageLoaderService,
  ) {}

  async page(caller: Caller, jobId: string, resultId: string, view: 'raw' | 'text'): Promise<ArchivedPageBody> {
    const job = await this.jobs.getRecord(caller, jobId);
    const result = await this.results.findItem(caller, job._id, resultId);
    if (!result) throw Errors.notFound('Result');
    const key = pageKeyOf(job, result._id);
    const page = key ? await this.archive.load(caller.userId, job._id, key) : null;
    if (!page || page.record.failure) {
      throw new AppError(
        'not-found',
        'The page of this result is not in the archive: the job did not keep pages (archive: false), the archive expired (GLEANER_ARCHIVE_TTL_DAYS) or the job is of a type that keeps none.',
      );
    }
    const { record } = page;
    if (view === 'raw') {
      return {
        contentType: record.headers['content-type'] || record.content_type || 'application/octet-stream',
        filename: `page-${resultId}${extension(record.content_type)}`,
        body: page.body,
        attachment: true,
      };
    }
    const fetched = archivedFetch(page, false);
    const content = await this.loader.convert(fetched, { mode: 'full' });
    return {
      contentType: 'text/plain; charset=utf-8',
      filename: `page-${resultId}.md`,
      body: Buffer.from(content.markdown, 'utf8'),
      attachment: false,
    };
  }
}

function extension(contentType: string): string {
  if (/html/.test(contentType)) return '.html';
  if (contentType === 'application/pdf') return '.pdf';
  if (/json/.test(contentType)) return '.json';
  if (/xml/.test(contentType)) return '.xml';
  return '.txt';
}
