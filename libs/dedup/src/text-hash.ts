import { createHash } from 'node:crypto';

/**
 * The hash of a page's text with whitespace collapsed (formatting-only edits of the HTML are not a change): the one
 * normalised text hash a monitor keeps per URL (docs/monitors.md "Cheap re-runs") and `dedupe: exact` compares across a
 * crawl's pages (docs/dedup.md).
 */
export function textHash(text: string): string {
  return createHash('sha256').update(text.normalize('NFKC').replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 32);
}
