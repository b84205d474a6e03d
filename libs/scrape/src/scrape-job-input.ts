import { z } from 'zod';
import { FETCH_MODES, storedFetchControlSchema, type FetchMode, type StoredFetchControl } from '@app/fetch';
import { SCRAPE_FORMATS, type ScrapeFormat } from './scrape-formats';

export interface ScrapeJobInput {
  url: string;
  formats: ScrapeFormat[];
  only_main_content: boolean;
  fetch_mode: FetchMode;
  /** Deadline of the fetch; null: GLEANER_FETCH_TIMEOUT_MS. */
  timeout_ms: number | null;
  /** With the `screenshot` format: the viewport or the whole page. */
  full_page_screenshot: boolean;
  /** User-Agent and wait_for (headers and cookies travel sealed). */
  fetch_control: StoredFetchControl | null;
}

const scrapeInputSchema = z.object({
  url: z.string(),
  formats: z.array(z.enum(SCRAPE_FORMATS)).min(1),
  only_main_content: z.boolean(),
  fetch_mode: z.enum(FETCH_MODES),
  timeout_ms: z.number().int().nullable(),
  full_page_screenshot: z.boolean(),
  fetch_control: storedFetchControlSchema,
});

export function parseScrapeInput(raw: unknown): ScrapeJobInput {
  return scrapeInputSchema.parse(raw);
}
