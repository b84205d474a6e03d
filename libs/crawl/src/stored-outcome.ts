import { Usage, type UsageRecordFields } from '@app/core';
import type { DuplicateMade, ExtractionMade, FormatsMade, PageExtraction, PageMade } from '@app/extraction';
import type { PageOutcome } from './crawl.types';

/**
 * A completed page's result as `crawl_outcomes` stores it: flat, in the record spellings. The page worker that
 * writes an outcome and the owner that reads it may run different versions during a rolling update
 * (docs/operations-deploy.md), so the stored form does not follow the in-process PageExtraction: it is written
 * and read here, and nowhere else. A new field is added here (older owners ignore it).
 */
export interface StoredPageResult extends UsageRecordFields {
  data: unknown;
  /** Absent: `model` (outcomes stored before learned extraction). */
  method?: PageMade['method'];
  /** `scrape` pages: how the page was made into its formats (FormatsMade but its method). */
  details?: Omit<FormatsMade, 'method'> | null;
  /** `duplicate` pages: the original and why (DuplicateMade but its method). */
  duplicate?: Omit<DuplicateMade, 'method'>;
  program_id?: string | null;
  template_id?: string | null;
  model_fields?: string[] | null;
  model_call?: 'full' | 'partial' | null;
  llm_model: string | null;
  llm_provider: string | null;
  llm_cost_usd: number;
  provenance?: PageExtraction['provenance'];
  warnings?: PageExtraction['warnings'];
  /** `content_truncated` and the lists' item counts (docs/long-lists.md); absent on outcomes stored before them. */
  completeness?: PageExtraction['completeness'];
  /** A `paginate` page: the pages its lists were read from (docs/long-lists.md "Pagination"). */
  pagination?: PageExtraction['pagination'];
}

type Completed = Extract<PageOutcome, { kind: 'completed' }>;
type Failed = Extract<PageOutcome, { kind: 'failed' }>;

/** An outcome as `crawl_outcomes` stores it. */
export type StoredPageOutcome =
  | Exclude<PageOutcome, Completed | Failed>
  | (Omit<Completed, 'result'> & { result: StoredPageResult | null })
  | (Omit<Failed, 'usage'> & { usage: UsageRecordFields | null });

/** The stored form of an outcome (what finishOutcome writes). */
export function toStoredOutcome(outcome: PageOutcome): StoredPageOutcome {
  if (outcome.kind === 'completed') return { ...outcome, result: outcome.result ? toStoredResult(outcome.result) : null };
  if (outcome.kind === 'failed') return { ...outcome, usage: outcome.usage ? Usage.toRecordFields(outcome.usage) : null };
  return outcome;
}

/** An outcome read from `crawl_outcomes` (written by this version or an earlier one). */
export function fromStoredOutcome(stored: StoredPageOutcome): PageOutcome {
  if (stored.kind === 'completed') return { ...stored, result: stored.result ? fromStoredResult(stored.result) : null };
  if (stored.kind === 'failed') return { ...stored, usage: stored.usage ? Usage.fromRecordFields(stored.usage) : null };
  return stored;
}

function toStoredResult(result: PageExtraction): StoredPageResult {
  const { made } = result;
  return {
    data: result.data,
    method: made.method,
    ...(made.method === 'scrape' ? { details: detailsOf(made) } : {}),
    ...(made.method === 'duplicate' ? { duplicate: duplicateOf(made) } : {}),
    ...(made.method !== 'scrape' && made.method !== 'unchanged' && made.method !== 'duplicate' ? learnedFieldsOf(made) : {}),
    llm_model: result.model?.model ?? null,
    llm_provider: result.model?.provider ?? null,
    ...Usage.toCounters(result.usage),
    ...(result.provenance ? { provenance: result.provenance } : {}),
    ...(result.warnings && result.warnings.length > 0 ? { warnings: result.warnings } : {}),
    ...(result.completeness ? { completeness: result.completeness } : {}),
    ...(result.pagination ? { pagination: result.pagination } : {}),
  };
}

function fromStoredResult(stored: StoredPageResult): PageExtraction {
  return {
    data: stored.data,
    made: madeOf(stored),
    model: stored.llm_model !== null && stored.llm_provider !== null ? { provider: stored.llm_provider, model: stored.llm_model } : null,
    usage: Usage.fromRecordFields(stored),
    ...(stored.provenance ? { provenance: stored.provenance } : {}),
    ...(stored.warnings && stored.warnings.length > 0 ? { warnings: stored.warnings } : {}),
    ...(stored.completeness ? { completeness: stored.completeness } : {}),
    ...(stored.pagination ? { pagination: stored.pagination } : {}),
  };
}

function detailsOf(made: FormatsMade): Omit<FormatsMade, 'method'> {
  const { method: _method, ...details } = made;
  return details;
}

function duplicateOf(made: DuplicateMade): Omit<DuplicateMade, 'method'> {
  const { method: _method, ...duplicate } = made;
  return duplicate;
}

function learnedFieldsOf(made: ExtractionMade): Partial<StoredPageResult> {
  return {
    ...(made.program_id ? { program_id: made.program_id } : {}),
    ...(made.template_id ? { template_id: made.template_id } : {}),
    ...(made.model_fields ? { model_fields: made.model_fields } : {}),
    ...(made.model_call ? { model_call: made.model_call } : {}),
  };
}

/** How the page was made, from the flat stored form (a stored `null` or absent field is left out, as a fresh result has it). */
function madeOf(stored: StoredPageResult): PageMade {
  const method = stored.method ?? 'model';
  // A formats page's details were stored with it (every version wrote them).
  if (method === 'scrape') return { method, ...stored.details! };
  if (method === 'unchanged') return { method };
  if (method === 'duplicate') return { method, ...stored.duplicate! };
  return {
    method,
    ...(stored.program_id ? { program_id: stored.program_id } : {}),
    ...(stored.template_id ? { template_id: stored.template_id } : {}),
    ...(stored.model_fields ? { model_fields: stored.model_fields } : {}),
    ...(stored.model_call ? { model_call: stored.model_call } : {}),
  };
}
