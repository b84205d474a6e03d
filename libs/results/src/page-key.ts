/** Job types with one result per run: the page they were sent for. */
export const SINGLE_RESULT_TYPES: ReadonlySet<string> = new Set(['extract', 'analyze', 'scrape']);

/** The page key of a one-page job's page: its completed result is `<job>:p:single`, its archived page `<job>:single`. */
export const SINGLE_PAGE_KEY = 'single';

/**
 * The page a stored result belongs to, by the result's `_id`: a crawl page's key (`<job>:p:<key>`), or a
 * one-page job's single page, whatever its result (a failed one is stored under its seq). Null otherwise.
 */
export function pageKeyOf(job: { _id: string; type: string }, resultId: string): string | null {
  const prefix = `${job._id}:p:`;
  if (resultId.startsWith(prefix)) return resultId.slice(prefix.length);
  return SINGLE_RESULT_TYPES.has(job.type) ? SINGLE_PAGE_KEY : null;
}
