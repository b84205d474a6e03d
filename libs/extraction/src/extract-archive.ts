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
