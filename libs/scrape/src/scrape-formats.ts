/** What POST /scrape can return for a page (docs/scrape.md "Formats"). */
export const SCRAPE_FORMATS = ['markdown', 'text', 'html', 'raw_html', 'links', 'page_info', 'screenshot'] as const;
export type ScrapeFormat = (typeof SCRAPE_FORMATS)[number];

export const DEFAULT_SCRAPE_FORMATS: readonly ScrapeFormat[] = ['markdown'];

/** The requested formats in the canonical order, each once. */
export function normaliseFormats(formats: readonly string[] | undefined): ScrapeFormat[] {
  const wanted = new Set(formats && formats.length > 0 ? formats : DEFAULT_SCRAPE_FORMATS);
  return SCRAPE_FORMATS.filter((format) => wanted.has(format));
}
