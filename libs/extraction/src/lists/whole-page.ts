import { warning, type Warning } from '@app/core';
import { itemGroups } from './item-blocks';
import type { ItemsReport } from './list-merge';
import type { PageList } from './list-paths';

/** The characters of an item's first line that name it on the whole page (its text, whatever the conversion kept around it). */
const SNIPPET = 60;
const MIN_SNIPPET = 20;

/**
 * Items each list has on the whole page when the model read only the main content (docs/long-lists.md "Main content"):
 * the whole page's group of repeated items that holds the read list's first item, when it has more items. A main
 * content cut in the middle of a list (readability keeping part of a run of items) is otherwise invisible: the count
 * is taken on the text the model read, which the cut shortened too.
 */
export function wholePageCounts(read: string, whole: string, lists: PageList[]): Map<string, number> {
  const counts = new Map<string, number>();
  const groups = itemGroups(whole);
  for (const list of lists) {
    if (!list.group) continue;
    const first = list.group.items[0];
    const snippet = read.slice(first.start, first.end).split('\n')[0].trim().slice(0, SNIPPET);
    if (snippet.length < MIN_SNIPPET) continue;
    const holding = groups.filter((g) => whole.slice(g.items[0].start, g.items[g.items.length - 1].end).includes(snippet));
    const most = Math.max(0, ...holding.map((g) => g.items.length));
    if (most > list.group.items.length) counts.set(list.path, most);
  }
  return counts;
}

/**
 * The reports with the whole page's counts: a list the main content holds part of is expected at the whole page's
 * count, and is not complete; its `list_incomplete` warning says where the rest is.
 */
export function withWholePage(reports: ItemsReport[], counts: Map<string, number>): { items: ItemsReport[]; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const items = reports.map((r) => {
    const whole = counts.get(r.path);
    if (whole === undefined || r.expected === null || whole <= r.expected) return r;
    const list = r.path === '$' ? 'The list' : `The list \`${r.path}\``;
    warnings.push(
      warning(
        'list_incomplete',
        `${list} is incomplete: the page lists ${whole} items, the main content the model read holds ${r.expected} of them, and the answer has ${r.extracted}. ` +
          'Ask with only_main_content: false for the whole page.',
        r.path === '$' ? 'body.schema' : `body.schema.${r.path}`,
      ),
    );
    return { ...r, expected: whole, complete: r.extracted > whole ? null : false };
  });
  return { items, warnings };
}
