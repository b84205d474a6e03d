import type { CrawlOptions } from '@app/sites';

/**
 * The options of a job whose pages come from the archive (a re-extraction, a WARC extraction): everything about
 * finding and fetching URLs off, one page per archived page, each kept in this job's archive as it is read. `base`
 * is the job's resolved options; `own` are the job type's own fields (placed before `archive`, as they always were).
 */
export function archivedJobOptions(base: CrawlOptions, maxPages: number, own: Partial<CrawlOptions> = {}): CrawlOptions {
  return {
    ...base,
    follow_pattern: null,
    follow_selector: null,
    max_depth: 0,
    max_pages: maxPages,
    same_domain_only: false,
    use_sitemap: false,
    respect_robots: false,
    extract_from_seed: true,
    delay_ms: 0,
    include_patterns: [],
    exclude_patterns: [],
    ...own,
    archive: true,
  };
}
