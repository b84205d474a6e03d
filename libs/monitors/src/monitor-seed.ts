import type { FieldError } from '@app/core';

/** Crawl options about finding pages: a list monitor's pages are its list (as POST /batch/extract's options omit them). */
export const LIST_REFUSED_OPTIONS = [
  'max_depth',
  'max_pages',
  'follow_pattern',
  'follow_selector',
  'same_domain_only',
  'use_sitemap',
  'extract_from_seed',
  'include_patterns',
  'exclude_patterns',
] as const;

/**
 * The seed rules of a monitor (docs/monitors.md "The resource"): `url` or `urls`, not both (a saved site
 * may go with either); a list takes no option about finding pages.
 */
export function seedProblems(monitor: { url: string | null; urls?: string[] | null; options: Record<string, unknown> }): FieldError[] {
  const problems: FieldError[] = [];
  if (monitor.url && monitor.urls)
    problems.push({ location: 'body.urls', message: 'give url (a seed to crawl) or urls (a list of pages), not both' });
  if (monitor.urls) {
    for (const name of LIST_REFUSED_OPTIONS) {
      if (monitor.options[name] !== undefined && monitor.options[name] !== null)
        problems.push({
          location: `body.options.${name}`,
          message: 'is for a crawl from url; a list of urls is its pages and follows no links',
        });
    }
  }
  return problems;
}
