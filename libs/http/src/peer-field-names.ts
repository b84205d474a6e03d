/**
 * Field names of peer APIs (Firecrawl v2, Crawl4AI) and where Gleaner takes the same thing, nearest first:
 * an unknown field named like this gets "did you mean" the first of these paths the request's body has
 * (docs/migrating.md). Edit distance alone cannot find them (`limit` is not near `max_pages`).
 */
const PEER_FIELD_NAMES: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    limit: ['options.max_pages', 'max_pages'],
    maxpages: ['options.max_pages'],
    max_pages: ['options.max_pages'],
    maxdiscoverydepth: ['options.max_depth'],
    maxdepth: ['options.max_depth'],
    max_depth: ['options.max_depth'],
    includepaths: ['options.include_patterns'],
    excludepaths: ['options.exclude_patterns'],
    allowexternallinks: ['options.same_domain_only'],
    include_external: ['options.same_domain_only'],
    crawlentiredomain: ['options.same_domain_only'],
    allowsubdomains: ['options.same_domain_only', 'include_subdomains'],
    sitemap: ['options.use_sitemap', 'use_sitemap'],
    ignorerobotstxt: ['options.respect_robots'],
    delay: ['options.delay_ms'],
    maxconcurrency: ['options.concurrency'],
    concurrency: ['options.concurrency'],
    timeout: ['timeout_ms', 'options.timeout_ms'],
    page_timeout: ['timeout_ms'],
    waitfor: ['wait_for', 'options.wait_for'],
    scrapeoptions: ['formats'],
    jsonoptions: ['schema'],
    extract: ['schema'],
    extraction_strategy: ['schema'],
    proxy: ['fetch_mode'],
    mobile: ['fetch_mode'],
    user_agent_mode: ['user_agent'],
    useragent: ['user_agent', 'options.user_agent'],
  }),
);

/**
 * The Gleaner field a peer's name stands for, among the fields this body has (`has` tests a path under the body).
 * A Map, not an object literal: a body key such as `constructor` or `__proto__` must find nothing.
 */
export function peerFieldSuggestion(key: string, has: (path: string) => boolean): string | undefined {
  return PEER_FIELD_NAMES.get(key.toLowerCase())?.find(has);
}
