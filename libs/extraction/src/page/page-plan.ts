import type { JobRecord } from '@app/jobs';
import type { ModelTarget, StoredLlmConfig } from '@app/llm';
import { loadOptionsFor, type LoadedPage, type LoadOptions, type PageFormatsPlan } from '@app/pages';
import type { ProvenanceSettings } from '@app/provenance';
import type { JsonSchemaObject } from '@app/schema';
import type { ExtractionMode } from '../extraction-mode';
import type { DuplicateMade } from './page-extraction';

/**
 * The page pipeline's check before the model call (docs/architecture.md "The page pipeline", docs/dedup.md): whether the
 * page repeats an earlier page of its job. A crawl or batch with `dedupe` or a rel=canonical in scope asks it; a
 * single-page job has none.
 */
export interface DuplicateCheck {
  check(page: LoadedPage): Promise<DuplicateMade | null>;
}

/** A job's data made by the model chain, or by its learned programs (docs/learned-extraction.md), grounded on the page. */
export interface ModelPagePlan {
  kind: 'model';
  schema: JsonSchemaObject;
  /** As stored on the job (a BYOK key travels sealed: PageRun.secrets). */
  llmConfig: StoredLlmConfig | null;
  /** `auto`: the user's learned programs of the page's template first, as `consumer`. */
  mode: ExtractionMode;
  /** Whose trust in the templates' programs the page uses and builds (EXTRACTS_CONSUMER, or a crawl's crawlConsumer). */
  consumer: string;
  /** `metadata.fields` and what an ungrounded value does (docs/provenance.md). */
  settings: ProvenanceSettings;
  /** The request's prompt (the `json` format's): told to the model beside the schema. */
  instructions?: string;
  /** The job's cost cap: a long list's chunks stop being asked once the page's calls cost more (docs/long-lists.md). */
  maxCostUsd?: number | null;
}

/** A job's pages made into formats, without a model (docs/scrape.md). */
export interface FormatsPagePlan {
  kind: 'formats';
  formats: PageFormatsPlan;
  /** The id the page's screenshot is stored under (derived from the job and the page, so a redone page stores one). */
  screenshotId: string;
  /** A one-page scrape: the fetch duration goes into the metadata its answer is made of (FormatsMade). */
  withFetchDuration: boolean;
  /**
   * The `json` format (docs/scrape.md "The json format"): the page's data by this model plan, beside the other formats,
   * with its usage, capture and grounding as a model page's.
   */
  json?: ModelPagePlan;
}

/** How a job makes each of its pages' data: fixed by its input, the same for every page. */
export type PagePlan = ModelPagePlan | FormatsPagePlan;

/** What the page loader must do for a plan: the formats' conversion, or the attribute values a value may be grounded on. */
export function pageLoadOptions(plan: PagePlan): Pick<LoadOptions, 'conversion' | 'also' | 'screenshot' | 'tags'> {
  return plan.kind === 'formats' ? loadOptionsFor(plan.formats) : { also: { attributes: true } };
}

/** A crawl's model plan is resolved once per this long per process (not once per page). */
export const PLAN_CACHE_MS = 30_000;

/** A job's model plan, resolved once per PLAN_CACHE_MS and shared by its pages in this process (a crawl's). */
export class ModelPlanCache {
  private cached: { targets: ModelTarget[]; at: number } | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  async get(resolve: () => Promise<ModelTarget[]>): Promise<ModelTarget[]> {
    if (this.cached && this.now() - this.cached.at < PLAN_CACHE_MS) return this.cached.targets;
    const targets = await resolve();
    this.cached = { targets, at: this.now() };
    return targets;
  }
}

/** One page's run in its job: whose it is, its opened secrets (a BYOK key, fetch headers), its abort signal. */
export interface PageRun {
  job: JobRecord;
  secrets: Record<string, string>;
  signal: AbortSignal;
  /** A crawl's plan cache; without one the model plan is resolved for the page. */
  plans?: ModelPlanCache;
  /** A crawl's or batch's check for a page that repeats an earlier one (before any model call or format). */
  duplicates?: DuplicateCheck;
}
