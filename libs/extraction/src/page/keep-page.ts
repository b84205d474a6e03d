import { pageCapture, type PageArchive } from '@app/archive';
import type { JobRecord } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import type { LoadedPage } from '@app/pages';

/**
 * Keeps a fetched page in the archive (docs/archive.md), the same for every job: an extract's page under the
 * one-page key (SINGLE_PAGE_KEY), a crawl's under its page key, so the page route, the WARC export, a
 * re-extraction, the deletion of the job and the retention find them alike. Archiving is a side effect: it
 * never fails the page (an error is logged and the page is extracted all the same).
 */
export async function keepPage(
  archive: Pick<PageArchive, 'keep'>,
  job: Pick<JobRecord, '_id' | 'user_id'>,
  key: string,
  requestedUrl: string,
  page: LoadedPage,
  logger: AppLogger,
): Promise<void> {
  try {
    await archive.keep(job.user_id, job._id, key, pageCapture(requestedUrl, page.fetch, page.fetchedAt));
  } catch (error) {
    logger.warn({ err: error, job_id: job._id, url: page.fetch.url }, 'the page could not be archived; it is extracted all the same');
  }
}
