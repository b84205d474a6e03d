import { z } from 'zod';
import { warningsOf, type Warning } from '@app/core';
import { FETCH_MODES, storedFetchControlSchema, type FetchMode, type StoredFetchControl } from '@app/fetch';
import { storedLlmConfigSchema, type StoredLlmConfig } from '@app/llm';
import { groundingPolicySchema, provenanceModeSchema, type GroundingPolicy, type ProvenanceMode } from '@app/provenance';
import type { JsonSchemaObject } from '@app/schema';
import { extractionModeSchema, type ExtractionMode } from './extraction-mode';
import { storedPaginate } from './pagination/paginate-input';

export interface ExtractJobInput {
  url: string;
  fetch_mode: FetchMode;
  schema: JsonSchemaObject;
  schema_id: string | null;
  site_id: string | null;
  llm_config: StoredLlmConfig | null;
  max_cost_usd: number | null;
  /** `auto`: the page goes through the user's learned programs for its site and schema (docs/learned-extraction.md "Extracts"). */
  extraction_mode: ExtractionMode;
  /** User-Agent and wait_for of the request (its headers and cookies travel sealed); null without them and on older jobs. */
  fetch_control: StoredFetchControl | null;
  /** `metadata.fields` of the result, and what an ungrounded value does (docs/provenance.md); defaults on older jobs. */
  provenance: ProvenanceMode;
  grounding: GroundingPolicy;
  /** Keep the fetched page in the archive (docs/archive.md "Extracts"); false on jobs from before it existed. */
  archive: boolean;
  /** The request's warnings (a schema value that looks like a misspelled type), for the result; [] on older jobs. */
  warnings: Warning[];
  /** The request's prompt (told to the model; with SCHEMA_FROM_PROMPT, what the proposed schema is for); null without one and on older jobs. */
  prompt: string | null;
  /** Follow the next-page link (docs/long-lists.md "Pagination"); null without one and on older jobs. */
  paginate: { selector: string; max_pages: number } | null;
}

export interface AnalyzeJobInput {
  url: string;
  depth: number;
  fetch_mode: FetchMode;
  site_id: string | null;
  llm_config: StoredLlmConfig | null;
  /**
   * Its fetch control as an extract's is stored (its pool and auth profile; the saved site's headers and cookies
   * travel sealed), opened for its fetches as a page's is; null without one.
   */
  fetch_control: StoredFetchControl | null;
}

/** A normalised JSON Schema object as stored on a job (it was validated by the schema lib at intake). */
export const jsonSchemaObject = z.custom<JsonSchemaObject>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be a JSON Schema object',
);

const fetchModeSchema = z.enum(FETCH_MODES);

/** Warnings stored on a job's input (libs/core warnings.ts); absent on jobs from before they existed. */
export const storedWarnings = z
  .unknown()
  .optional()
  .transform((value) => warningsOf(value));

const extractInputSchema = z.object({
  url: z.string(),
  fetch_mode: fetchModeSchema,
  schema: jsonSchemaObject,
  schema_id: z.string().nullable(),
  site_id: z.string().nullable(),
  llm_config: storedLlmConfigSchema,
  max_cost_usd: z.number().nullable(),
  extraction_mode: extractionModeSchema,
  fetch_control: storedFetchControlSchema,
  provenance: provenanceModeSchema,
  grounding: groundingPolicySchema,
  archive: z.boolean().default(false),
  warnings: storedWarnings,
  prompt: z.string().nullable().default(null),
  paginate: storedPaginate.nullable().default(null),
});

const analyzeInputSchema = z
  .object({
    url: z.string(),
    depth: z.number().int(),
    fetch_mode: fetchModeSchema,
    site_id: z.string().nullable(),
    llm_config: storedLlmConfigSchema,
    fetch_control: storedFetchControlSchema,
    // Jobs stored before the analysis kept its fetch control whole named their pool and profile on their own.
    proxy: z.string().nullish(),
    auth_profile: z.string().nullish(),
  })
  .transform(({ proxy, auth_profile, ...input }): AnalyzeJobInput => {
    if (input.fetch_control || (!proxy && !auth_profile)) return input;
    return {
      ...input,
      fetch_control: { user_agent: null, wait_for: null, ...(proxy ? { proxy } : {}), ...(auth_profile ? { auth_profile } : {}) },
    };
  });

export function parseExtractInput(raw: unknown): ExtractJobInput {
  return extractInputSchema.parse(raw);
}

export function parseAnalyzeInput(raw: unknown): AnalyzeJobInput {
  return analyzeInputSchema.parse(raw);
}
