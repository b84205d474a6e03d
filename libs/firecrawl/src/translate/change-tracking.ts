import { createTwoFilesPatch } from 'diff';
import { diffRecords } from '@app/monitors';
import type { ChangeTracking } from '../wire/responses';

/** A copy of the page as compared: its markdown and, in the json mode, the fields extracted from it. */
export interface TrackedCopy {
  markdown: string;
  json?: unknown;
}

/**
 * Firecrawl's `changeTracking` of a page (docs/firecrawl.md "Change tracking"): its markdown now against the
 * markdown of the tenant's previous archived copy of the URL (null: there is none, the page is `new`).
 * `git-diff` adds the unified diff of the two (`diff.text`, the same text Firecrawl's `diff` library makes);
 * `json` the fields extracted from both that differ (`json: {path: {previous, current}}`), compared as a
 * monitor compares them (docs/monitors.md "Normalisation": `1,299.00` equals `1299`, lists of values as sets).
 */
export function changeTracking(
  previous: (TrackedCopy & { fetchedAt: string }) | null,
  current: TrackedCopy,
  modes: ReadonlyArray<'git-diff' | 'json'>,
): ChangeTracking {
  if (!previous) return { previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' };
  const same = normalise(previous.markdown) === normalise(current.markdown);
  const fields = modes.includes('json') ? diffRecords(previous.json ?? null, current.json ?? null) : [];
  return {
    previousScrapeAt: previous.fetchedAt,
    changeStatus: same && fields.length === 0 ? 'same' : 'changed',
    visibility: 'visible',
    ...(modes.includes('git-diff') && !same
      ? { diff: { text: createTwoFilesPatch('previous', 'current', normalise(previous.markdown), normalise(current.markdown)) } }
      : {}),
    ...(modes.includes('json')
      ? { json: Object.fromEntries(fields.map((change) => [change.path || '$', { previous: change.before, current: change.after }])) }
      : {}),
  };
}

/** Line endings and trailing whitespace do not make a change. */
function normalise(markdown: string): string {
  return `${markdown
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim()}\n`;
}
