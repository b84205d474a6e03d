import { warning, type Warning } from '@app/core';
import { listAt, type PageList } from './list-paths';

/** One answer of a chunked page, in page order, with the run of items it was asked for. */
export interface ChunkAnswer {
  data: unknown;
  /** The chunk's first item (the merged list's seam is before it, unless it is 0). */
  from: number;
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** Canonical JSON (keys sorted): two items with the same values are the same item. */
export function sameKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sameKey).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sameKey((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Items before a seam an answer after it may repeat (a model re-reading the rows its part starts after). */
const SEAM_WINDOW = 3;

/**
 * The answers of a page's chunks as one answer (docs/long-lists.md "Merging"): the chunked list's items in page
 * order, the items an answer starts with that repeat one of the last few before its seam dropped (a model that answers the item its chunk starts
 * after); another list of the schema gathered from every chunk, each item once; every other field taken once, from
 * the first chunk that states it (the first chunk carries the page's head, the last its tail).
 */
export function mergeChunks(
  answers: ChunkAnswer[],
  chunked: string,
  lists: PageList[],
): { data: unknown; seamDuplicates: number; offsets: number[] } {
  let seamDuplicates = 0;
  const merged: unknown[] = [];
  // Per answer: what its item indexes add to become the merged list's.
  const offsets: number[] = [];
  for (const answer of answers) {
    const items = listAt(answer.data, chunked) ?? [];
    let i = 0;
    if (answer.from > 0 && merged.length > 0) {
      const beforeSeam = new Set(merged.slice(-SEAM_WINDOW).map(sameKey));
      while (i < items.length && beforeSeam.has(sameKey(items[i]))) {
        i++;
        seamDuplicates++;
      }
    }
    offsets.push(merged.length - i);
    merged.push(...items.slice(i));
  }
  if (chunked === '$') return { data: merged, seamDuplicates, offsets };
  const otherLists = new Set(lists.map((l) => l.path).filter((p) => p !== chunked));
  const data: Record<string, unknown> = {};
  for (const answer of answers) {
    if (answer.data === null || typeof answer.data !== 'object' || Array.isArray(answer.data)) continue;
    for (const [key, value] of Object.entries(answer.data as Record<string, unknown>)) {
      if (key === chunked) continue;
      if (otherLists.has(key) && Array.isArray(value)) {
        const kept = Array.isArray(data[key]) ? (data[key] as unknown[]) : [];
        const seen = new Set(kept.map(sameKey));
        for (const item of value) {
          const key = sameKey(item);
          if (seen.has(key)) continue;
          seen.add(key);
          kept.push(item);
        }
        data[key] = kept;
      } else if (!(key in data) || (isEmpty(data[key]) && !isEmpty(value))) data[key] = value;
    }
  }
  data[chunked] = merged;
  return { data, seamDuplicates, offsets };
}

/** `metadata.items`: one per list of the schema (docs/long-lists.md "The answer"). */
export interface ItemsReport {
  /** `$` (the answer is the list) or its field. */
  path: string;
  /** Items the page's repeated structure holds; null when none was found for this list. */
  expected: number | null;
  /** Items in `data`. */
  extracted: number;
  /** Model answers the list was extracted in (1: not chunked). */
  chunks: number;
  /**
   * Every item is in `data`: false when fewer than expected were extracted or the page's text was cut; null when
   * unknown (no count, more items than counted, or a count another repeated structure of the page competes with).
   */
  complete: boolean | null;
  /** Present (true) when another repeated structure of the page competes with the one counted: `expected` may be another list's. */
  expected_uncertain?: true;
}

export function itemsReports(data: unknown, lists: PageList[], chunks: Map<string, number>, contentTruncated: boolean): ItemsReport[] {
  return lists.map((list) => {
    const extracted = listAt(data, list.path)?.length ?? 0;
    const expected = list.group?.items.length ?? null;
    // More items than counted: the count missed some, so it cannot say the list is complete; nor can a count that may
    // be of another list than the page's (docs/long-lists.md "Counting items").
    const uncertain = list.contested === true;
    const complete = contentTruncated
      ? false
      : expected === null || extracted > expected
        ? null
        : extracted < expected
          ? false
          : uncertain
            ? null
            : true;
    return {
      path: list.path,
      expected,
      extracted,
      chunks: chunks.get(list.path) ?? 1,
      complete,
      ...(uncertain && expected !== null ? { expected_uncertain: true as const } : {}),
    };
  });
}

/** `list_incomplete` for each list known to miss items. */
export function incompleteWarnings(reports: ItemsReport[]): Warning[] {
  return reports
    .filter((r) => r.complete === false)
    .map((r) => {
      const where = r.path === '$' ? 'body.schema' : `body.schema.${r.path}`;
      const counts =
        r.expected !== null
          ? `the page lists ${r.expected} items${r.expected_uncertain ? ' (a count another repeated structure of the page competes with)' : ''} and the answer has ${r.extracted}`
          : `the answer has ${r.extracted} items and the page's text was cut before its end`;
      const list = r.path === '$' ? 'The list' : `The list \`${r.path}\``;
      return warning(
        'list_incomplete',
        `${list} is incomplete: ${counts} (${r.chunks} model answer${r.chunks === 1 ? '' : 's'}). The missing items were not extracted; a model with a larger output or context budget, or a narrower schema, gets more of them.`,
        where,
      );
    });
}
