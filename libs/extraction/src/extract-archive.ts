import { pageCapture, type PageArchive } from '@app/archive';
import type { JobRecord } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import type { LoadedPage } from '@app/pages';
import { SINGLE_PAGE_KEY } from '@app/results';

/**
 * Whether an extract keeps its page when neither the request nor its saved site says (docs/archive.md
 * "Extracts"): no. An extract is one page, cheap to fetch again; crawls, where fetching is the expensive
 * part, keep theirs by default.
 */
export const EXTRACT_ARCHIVE_DEFAULT = false;

/** The request's `archive`, else the saved site's `crawl_options.archive`, else the extract default. */
export function extractArchives(requested: boolean | undefined, site: { archive?: boolean }): boolean {
  return requested ?? site.archive ?? EXTRACT_ARCHIVE_DEFAULT;
}

/**
 * Keeps an extract's fetched page exactly as a crawl keeps one (the same capture and record, through the
 * same archive), under the key of a one-page job's page, so the page route, the WARC export, a
 * re-extraction, the deletion of the job and the retention find it as they find a crawl's. Like a crawl,
 * the extract never fails for it: a page that could not be kept is logged and extracted all the same.
 */
export async function keepExtractPage(
  archive: Pick<PageArchive, 'keep'>,
  job: Pick<JobRecord, '_id' | 'user_id'>,
  requestedUrl: string,
  page: LoadedPage,
  logger: AppLogger,
): Promise<void> {
  try {
    await archive.keep(job.user_id, job._id, SINGLE_PAGE_KEY, pageCapture(requestedUrl, page.fetch, page.fetchedAt));
  } catch (error) {
    logger.warn({ err: error, job_id: job._id, url: page.fetch.url }, 'the page could not be archived; it is extracted all the same');
  }
}
