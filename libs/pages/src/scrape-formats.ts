import { z } from 'zod';
import type { FetchMode } from '@app/fetch';
import type { LoadOptions } from './page-loader.service';

/**
 * What a page can be returned as (docs/scrape.md "Formats"): by POST /scrape, and by crawls and batches with formats.
 * `json` is the one a model makes (the request's schema extracted from the page, docs/scrape.md "The json format"):
 * the others never call one.
 */
export const SCRAPE_FORMATS = ['markdown', 'text', 'html', 'raw_html', 'links', 'page_info', 'screenshot', 'json'] as const;
export type ScrapeFormat = (typeof SCRAPE_FORMATS)[number];

export const DEFAULT_SCRAPE_FORMATS: readonly ScrapeFormat[] = ['markdown'];

/** The requested formats in the canonical order, each once. */
export function normaliseFormats(formats: readonly string[] | undefined): ScrapeFormat[] {
  const wanted = new Set(formats && formats.length > 0 ? formats : DEFAULT_SCRAPE_FORMATS);
  return SCRAPE_FORMATS.filter((format) => wanted.has(format));
}

/** How a job makes each of its pages into formats, as stored on the job (a scrape, or a crawl or batch without a schema). */
export interface PageFormatsPlan {
  formats: ScrapeFormat[];
  only_main_content: boolean;
  /** With the `screenshot` format: the viewport or the whole page. */
  full_page_screenshot: boolean;
  /** CSS selectors: only these elements make the content (absent: the page's, by `only_main_content`). */
  include_tags?: string[];
  /** CSS selectors: these elements (and what is inside them) are left out of the content. */
  exclude_tags?: string[];
}

export const pageFormatsPlanSchema = z.object({
  formats: z.array(z.enum(SCRAPE_FORMATS)).min(1),
  only_main_content: z.boolean(),
  full_page_screenshot: z.boolean(),
  include_tags: z.array(z.string()).optional(),
  exclude_tags: z.array(z.string()).optional(),
});

/** Whether the formats call the model (the `json` format): such a request needs a schema and a usable model, and costs. */
export function formatsNeedModel(formats: readonly ScrapeFormat[]): boolean {
  return formats.includes('json');
}

/** Why these formats cannot be made with this fetch mode, or null (a screenshot needs the browser). */
export function formatsFetchProblem(formats: readonly ScrapeFormat[], fetchMode: FetchMode): string | null {
  return formats.includes('screenshot') && fetchMode === 'static'
    ? 'screenshot needs the browser: use fetch_mode auto (which then renders) or dynamic'
    : null;
}

/** What the page loader must do for a plan: the conversion, the extra outputs and the screenshot. */
export function loadOptionsFor(plan: PageFormatsPlan): Pick<LoadOptions, 'conversion' | 'also' | 'screenshot' | 'tags'> {
  const formats = new Set(plan.formats);
  const tags = {
    ...(plan.include_tags?.length ? { include: plan.include_tags } : {}),
    ...(plan.exclude_tags?.length ? { exclude: plan.exclude_tags } : {}),
  };
  return {
    conversion: plan.only_main_content ? 'main' : 'full',
    ...(tags.include || tags.exclude ? { tags } : {}),
    // `json`: the attribute values its extracted values may be grounded on, as a model page's load has them.
    also: { text: formats.has('text'), html: formats.has('html'), ...(formats.has('json') ? { attributes: true } : {}) },
    ...(formats.has('screenshot') ? { screenshot: plan.full_page_screenshot ? ('full_page' as const) : ('viewport' as const) } : {}),
  };
}
