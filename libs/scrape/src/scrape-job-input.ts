import { z } from 'zod';
import { FETCH_MODES, storedFetchControlSchema, type FetchMode, type StoredFetchControl } from '@app/fetch';
import { pageFormatsPlanSchema, type PageFormatsPlan } from '@app/pages';

export interface ScrapeJobInput extends PageFormatsPlan {
  url: string;
  fetch_mode: FetchMode;
  /** Deadline of the fetch; null: GLEANER_FETCH_TIMEOUT_MS. */
  timeout_ms: number | null;
  /** User-Agent and wait_for (headers and cookies travel sealed). */
  fetch_control: StoredFetchControl | null;
}

const scrapeInputSchema = pageFormatsPlanSchema.extend({
  url: z.string(),
  fetch_mode: z.enum(FETCH_MODES),
  timeout_ms: z.number().int().nullable(),
  fetch_control: storedFetchControlSchema,
});

export function parseScrapeInput(raw: unknown): ScrapeJobInput {
  return scrapeInputSchema.parse(raw);
}
