import { z } from 'zod';
import type { Warning } from '@app/core';
import { jsonSchemaObject, storedWarnings } from '@app/extraction';
import { FETCH_MODES, storedFetchControlSchema, type FetchMode, type StoredFetchControl } from '@app/fetch';
import { storedLlmConfigSchema, type StoredLlmConfig } from '@app/llm';
import { pageFormatsPlanSchema, type PageFormatsPlan } from '@app/pages';
import { groundingPolicySchema, provenanceModeSchema, type GroundingPolicy, type ProvenanceMode } from '@app/provenance';
import type { JsonSchemaObject } from '@app/schema';

/** The `json` format's extraction, as stored on the job (docs/scrape.md "The json format"). */
export interface ScrapeJsonInput {
  schema: JsonSchemaObject;
  schema_id: string | null;
  prompt: string | null;
  /** As stored on the job (a BYOK key travels sealed). */
  llm_config: StoredLlmConfig | null;
  provenance: ProvenanceMode;
  grounding: GroundingPolicy;
  /** What the schema parsed with that deserves a look (libs/core warnings.ts), on the result. */
  warnings: Warning[];
}

export interface ScrapeJobInput extends PageFormatsPlan {
  url: string;
  fetch_mode: FetchMode;
  /** Deadline of the fetch; null: GLEANER_FETCH_TIMEOUT_MS. */
  timeout_ms: number | null;
  /** User-Agent and wait_for (headers and cookies travel sealed). */
  fetch_control: StoredFetchControl | null;
  /** With the `json` format; null without it (and on jobs from before it existed). */
  json: ScrapeJsonInput | null;
}

const scrapeJsonSchema = z.object({
  schema: jsonSchemaObject,
  schema_id: z.string().nullable(),
  prompt: z.string().nullable(),
  llm_config: storedLlmConfigSchema,
  provenance: provenanceModeSchema,
  grounding: groundingPolicySchema,
  warnings: storedWarnings,
});

const scrapeInputSchema = pageFormatsPlanSchema.extend({
  url: z.string(),
  fetch_mode: z.enum(FETCH_MODES),
  timeout_ms: z.number().int().nullable(),
  fetch_control: storedFetchControlSchema,
  json: scrapeJsonSchema.nullable().default(null),
});

export function parseScrapeInput(raw: unknown): ScrapeJobInput {
  const input = scrapeInputSchema.parse(raw);
  // A json format without its extraction would leave `data.json` out silently: the input is malformed.
  if (input.formats.includes('json') !== (input.json !== null)) throw new Error('the json format and its extraction go together');
  return input;
}
