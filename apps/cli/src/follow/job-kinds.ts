/** Job types run by the crawl engine: they have a crawl map, and the progress line counts its entries. */
const CRAWL_ENGINE = new Set(['crawl', 'batch', 'reextract', 'warc-extract']);

export function onCrawlEngine(type: string): boolean {
  return CRAWL_ENGINE.has(type);
}

/** How a message names the job ("The crawl goes on", "The re-extraction goes on"). */
export function jobNoun(type: string): string {
  switch (type) {
    case 'crawl':
      return 'The crawl';
    case 'batch':
      return 'The batch';
    case 'reextract':
      return 'The re-extraction';
    case 'warc-extract':
      return 'The WARC extraction';
    default:
      return 'The job';
  }
}

/** The progress line's word for a running job. */
export function runningLabel(type: string | undefined): string {
  if (type === 'crawl') return 'crawling';
  if (type === 'batch' || type === 'warc-extract') return 'extracting';
  if (type === 'reextract') return 're-extracting';
  return 'running';
}
