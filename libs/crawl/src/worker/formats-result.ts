import { createHash } from 'node:crypto';
import { AppError } from '@app/core';
import { buildFormats, type LoadedPage, type PageFormatsPlan } from '@app/pages';
import { ScreenshotsService } from '@app/results';
import type { PageOutcome } from '../crawl.types';

type PageResult = NonNullable<Extract<PageOutcome, { kind: 'completed' }>['result']>;

/**
 * A page's screenshot id in a crawl: derived from the job and the page's key, so a task redone after a
 * crash (or dispatched again) stores one PNG, and ids stay path-safe whatever the URL.
 */
export function pageScreenshotId(jobId: string, key: string): string {
  return `${jobId}-${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/**
 * The result of a page of a crawl or batch without a schema (docs/scrape.md "Crawls and batches"): its
 * formats as POST /scrape makes them, metadata as a scrape's, no model call and no cost. The PNG of a
 * `screenshot` is stored before the result names it.
 */
export async function formatsResult(
  page: LoadedPage,
  plan: PageFormatsPlan,
  screenshot: { jobId: string; key: string; store: (id: string, png: Buffer) => Promise<void> },
): Promise<PageResult> {
  const screenshotId = page.fetch.screenshot ? pageScreenshotId(screenshot.jobId, screenshot.key) : null;
  const data = buildFormats(page, plan.formats, screenshotId ? ScreenshotsService.path(screenshot.jobId, screenshotId) : null);
  if (screenshotId) await screenshot.store(screenshotId, page.fetch.screenshot!);
  return {
    data,
    method: 'scrape',
    details: {
      fetched_at: page.fetchedAt,
      fetch_mode: page.fetch.mode,
      status_code: page.fetch.status,
      content_type: page.fetch.contentType,
      convert_duration_ms: Math.round(page.content.stats.ms),
      ...(screenshotId ? { screenshot_id: screenshotId } : {}),
    },
    llm_model: null,
    llm_provider: null,
    token_usage_input: 0,
    token_usage_output: 0,
    cost_usd: 0,
    llm_cost_usd: 0,
  };
}

type Completed = Extract<PageOutcome, { kind: 'completed' }>;

/**
 * A page of a crawl without a schema, after its fetch: completed with its formats, or failed when they
 * cannot be made (over MAX_SCRAPE_DATA_BYTES, a screenshot too large); a store failure is thrown (the
 * queue delivers the task again).
 */
export async function formatsOutcome(
  page: LoadedPage,
  plan: PageFormatsPlan,
  base: Omit<Completed, 'kind' | 'extract_duration_ms' | 'result'>,
  screenshot: { jobId: string; key: string; store: (id: string, png: Buffer) => Promise<void> },
): Promise<PageOutcome> {
  const started = Date.now();
  try {
    const result = await formatsResult(page, plan, screenshot);
    return { kind: 'completed', ...base, extract_duration_ms: Date.now() - started, result };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return {
      kind: 'failed',
      error_category: error.category ?? 'internal',
      error_message: error.detail ?? error.message,
      error_details: null,
      http_status: page.fetch.status,
      final_url: page.fetch.url,
      retryable: false,
      usage: null,
    };
  }
}
