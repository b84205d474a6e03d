import { createHash } from 'node:crypto';
import { PageFailure, type PageExtraction, type PagePlan } from '@app/extraction';
import type { LoadedPage } from '@app/pages';
import type { PageOutcome } from '../crawl.types';
import type { JobContext } from './job-contexts';

type Completed = Extract<PageOutcome, { kind: 'completed' }>;

/**
 * A page's screenshot id in a crawl: derived from the job and the page's key, so a task redone after a
 * crash (or dispatched again) stores one PNG, and ids stay path-safe whatever the URL.
 */
export function pageScreenshotId(jobId: string, key: string): string {
  return `${jobId}-${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/**
 * How a page of this job is extracted: its model plan, or (a crawl or batch with formats) its formats, and with the
 * `json` format its model plan too (docs/scrape.md "Crawls and batches").
 */
export function crawlPagePlan(context: Pick<JobContext, 'job' | 'plan' | 'input'>, key: string): PagePlan {
  const { plan } = context;
  // The crawl's cost cap, checked between a long list's chunks too: what is left of it as this page starts (docs/long-lists.md).
  const cap = context.input.options.max_cost_usd;
  const left = cap === null || cap === undefined ? null : Math.max(0, cap - context.job.cost_usd);
  if ('kind' in plan) return left === null ? plan : { ...plan, maxCostUsd: left };
  const { json: planned, ...formats } = plan;
  const json = planned && left !== null ? { ...planned, maxCostUsd: left } : planned;
  return {
    kind: 'formats',
    formats,
    screenshotId: pageScreenshotId(context.job._id, key),
    withFetchDuration: false,
    ...(json ? { json } : {}),
  };
}

/**
 * The crawl page's end of the page pipeline: its extraction (or its failure) as the outcome its worker reports.
 * A failure is retried only when it is our own (PageFailure.retryable); a failure met while the task was being
 * cancelled or handed back is not the page's: it is thrown on to the worker. `extractStarted - started`: how far
 * into the task the extraction began (the message of an unexpected failure says it).
 */
export function extractionOutcome(
  extracted: PageExtraction | PageFailure,
  page: LoadedPage,
  base: Omit<Completed, 'kind' | 'extract_duration_ms' | 'result'>,
  at: { started: number; extractStarted: number },
  signal: AbortSignal,
): PageOutcome {
  if (!(extracted instanceof PageFailure) && extracted.made.method === 'duplicate') {
    // The check before the model call settled the page: skipped, naming its original (docs/dedup.md).
    const made = extracted.made;
    return {
      kind: 'skipped',
      reason: 'duplicate',
      why:
        made.reason === 'canonical' ? `its canonical address is ${made.duplicate_of}` : `${made.reason} duplicate of ${made.duplicate_of}`,
      final_url: base.final_url,
      duplicate: {
        duplicate_of: made.duplicate_of,
        duplicate_key: made.duplicate_key,
        duplicate_reason: made.reason,
        similarity: made.similarity,
      },
    };
  }
  if (!(extracted instanceof PageFailure)) {
    return { kind: 'completed', ...base, extract_duration_ms: Date.now() - at.extractStarted, result: extracted };
  }
  if (signal.aborted) throw extracted.thrown;
  return {
    kind: 'failed',
    error_category: extracted.category,
    error_message: extracted.unexpected
      ? `Extraction failed unexpectedly (started ${at.extractStarted - at.started} ms after the fetch).`
      : extracted.message,
    error_details: null,
    http_status: page.fetch.status,
    final_url: page.fetch.url,
    retryable: extracted.retryable,
    usage: extracted.usage,
    ...(extracted.ungroundedFields !== undefined ? { ungrounded_fields: extracted.ungroundedFields } : {}),
  };
}
