import type { DuplicateIndex } from '@app/dedup';
import type { DuplicateCheck, DuplicateMade } from '@app/extraction';
import type { LoadedPage } from '@app/pages';
import type { CrawlStorePort } from '../crawl.repository';
import type { PageTaskPayload } from '../crawl.types';
import type { JobContext } from './job-contexts';

/**
 * A crawl or batch page's check before the model call (docs/dedup.md), asked by the page pipeline's extraction step:
 * - its canonical address (`<link rel=canonical>` or a `Link: <…>; rel="canonical"` header), in every mode, when it is
 *   another address of this job that is not skipped (pending, running or done): that page is the original;
 * - with `dedupe` `exact` or `near`, the job's index of its earlier pages' texts (@app/dedup, in the store: the same
 *   for every replica).
 * A monitor's run has none: a monitor watches every URL of its own (docs/monitors.md).
 */
export function duplicateCheck(
  task: PageTaskPayload,
  context: Pick<JobContext, 'input' | 'scope' | 'job'>,
  repository: CrawlStorePort<{ entries: 'entry' }>,
  index: Pick<DuplicateIndex, 'check'>,
): DuplicateCheck | undefined {
  const { input } = context;
  if (input.monitor_id) return undefined;
  const dedupe = input.options.dedupe ?? 'off';
  return {
    async check(page: LoadedPage): Promise<DuplicateMade | null> {
      const canonical = canonicalOf(page);
      const target = canonical ? context.scope.canonical(canonical, page.fetch.url) : null;
      if (target && target.key !== task.key && context.scope.outsideDomain(target) === null) {
        const known = await repository.entries.entry(`${task.job_id}:${target.key}`);
        if (known && known.status !== 'skipped') {
          return { method: 'duplicate', duplicate_of: known.url, duplicate_key: known.key, reason: 'canonical', similarity: null };
        }
      }
      if (dedupe === 'off') return null;
      const job = { id: task.job_id, userId: context.job.user_id };
      const verdict = await index.check(job, { key: task.key, url: task.url, text: page.content.markdown }, dedupe);
      if (!verdict) return null;
      return {
        method: 'duplicate',
        duplicate_of: verdict.original.url,
        duplicate_key: verdict.original.key,
        reason: verdict.reason,
        similarity: verdict.similarity,
      };
    },
  };
}

/** The page's canonical address: its `Link` header's rel=canonical first (it is the server's), else the document's. */
export function canonicalOf(page: Pick<LoadedPage, 'fetch' | 'content'>): string | null {
  const header = Object.entries(page.fetch.headers ?? {}).find(([name]) => name.toLowerCase() === 'link')?.[1];
  if (header) {
    for (const part of header.split(/,(?=\s*<)/)) {
      const match = /^\s*<([^>]*)>(.*)$/.exec(part);
      if (match && /;\s*rel\s*=\s*"?([^";]*\s)?canonical(\s[^";]*)?"?\s*(;|$)/i.test(match[2])) return match[1];
    }
  }
  return page.content.metadata?.canonicalUrl ?? null;
}
