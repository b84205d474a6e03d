import { createTwoFilesPatch } from 'diff';
import type { ChangeTracking } from '../wire/responses';

/**
 * Firecrawl's `changeTracking` of a page (docs/firecrawl.md "Change tracking"): its markdown now against the
 * markdown of the tenant's previous archived copy of the URL (null: there is none, the page is `new`).
 * `git-diff` adds the unified diff of the two (`diff.text`, the same text Firecrawl's `diff` library makes).
 */
export function changeTracking(
  previous: { markdown: string; fetchedAt: string } | null,
  current: string,
  modes: ReadonlyArray<'git-diff' | 'json'>,
): ChangeTracking {
  if (!previous) return { previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' };
  const same = normalise(previous.markdown) === normalise(current);
  return {
    previousScrapeAt: previous.fetchedAt,
    changeStatus: same ? 'same' : 'changed',
    visibility: 'visible',
    ...(modes.includes('git-diff') && !same
      ? { diff: { text: createTwoFilesPatch('previous', 'current', normalise(previous.markdown), normalise(current)) } }
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
