import { Usage, type Warning } from '@app/core';
import type { FieldProvenance } from '@app/provenance';
import { sameKey } from '../lists/list-merge';
import type { ItemsReport } from '../lists/list-merge';
import { listAt, type ListPath } from '../lists/list-paths';
import type { ExtractionMade, PageExtraction } from '../page/page-extraction';

/** One page of a paginated extract (docs/long-lists.md "Pagination"): where it was fetched and what it gave. */
export interface PagedPage {
  url: string;
  extraction: PageExtraction<ExtractionMade>;
}

/** Why an extract stopped following its `paginate` links. */
export type PaginationStop =
  /** No link matched the selector on the last page (the list's end). */
  | { reason: 'no_next_link' }
  /** `max_pages` pages were read and the last one has a next link. */
  | { reason: 'max_pages'; next: string }
  /** The next page was not fetched or not extracted: robots.txt, the host, a failure, the cost cap. */
  | { reason: 'refused' | 'failed' | 'budget'; next: string; why: string };

/** `metadata.pagination`: the pages the answer is made of, in order, and which items each gave. */
export interface PaginationReport {
  pages: Array<{
    url: string;
    /** Per list of the schema: the page's items, as indexes of the merged list (`from`, `count`). */
    items: Record<string, { from: number; count: number }>;
    /** Items of this page equal to one an earlier page gave (a listing repeating its top item): dropped. */
    repeated: number;
  }>;
  stopped: PaginationStop;
}

const LEAF_INDEX = /^([^[.]+)\[(\d+)\](.*)$/;

/**
 * The pages of a paginated extract as one answer: each list of the schema gathered over the pages in order (an item
 * equal to one an earlier page gave is dropped), the other fields from the first page, usage summed, each list's count
 * and completeness over all pages (incomplete when the pages stopped before the list's end: `max_pages`, or a next
 * page refused or failed), provenance per value renumbered to the merged list, `metadata.pagination` saying which
 * items came from which page.
 */
export function mergePages(
  pages: PagedPage[],
  lists: ListPath[],
  stopped: PaginationStop,
): PageExtraction<ExtractionMade> & { pagination: PaginationReport } {
  const first = pages[0].extraction;
  const root = lists.some((l) => l.path === '$');
  const merged = new Map<string, unknown[]>(lists.map((l) => [l.path, []]));
  const seen = new Map<string, Set<string>>(lists.map((l) => [l.path, new Set()]));
  const fields: Record<string, FieldProvenance> = {};
  const report: PaginationReport = { pages: [], stopped };
  for (const page of pages) {
    const entry: PaginationReport['pages'][number] = { url: page.url, items: {}, repeated: 0 };
    // Per list: the page's index of an item -> its index in the merged list (dropped repeats have none).
    const moved = new Map<string, Map<number, number>>();
    for (const list of lists) {
      const into = merged.get(list.path)!;
      const keys = seen.get(list.path)!;
      const map = new Map<number, number>();
      const from = into.length;
      (listAt(page.extraction.data, list.path) ?? []).forEach((item, index) => {
        const key = sameKey(item);
        if (keys.has(key)) {
          entry.repeated++;
          return;
        }
        keys.add(key);
        map.set(index, into.length);
        into.push(item);
      });
      moved.set(list.path, map);
      entry.items[list.path] = { from, count: into.length - from };
    }
    report.pages.push(entry);
    for (const [path, provenance] of Object.entries(page.extraction.provenance?.fields ?? {})) {
      const renamed = renumbered(path, moved, root, page === pages[0]);
      if (renamed !== null) fields[renamed] = provenance;
    }
  }
  const data = root
    ? merged.get('$')
    : {
        ...(first.data !== null && typeof first.data === 'object' ? (first.data as Record<string, unknown>) : {}),
        ...Object.fromEntries(merged),
      };
  const endReached = stopped.reason === 'no_next_link';
  const items = lists.map((list) => listReport(list.path, pages, listAt(data, list.path)?.length ?? 0, endReached));
  const provenances = pages.map((p) => p.extraction.provenance).filter((p) => p !== undefined);
  return {
    data,
    made: first.made,
    model: pages.map((p) => p.extraction.model).find((m) => m !== null) ?? null,
    usage: Usage.sum(pages.map((p) => p.extraction.usage)),
    ...(provenances.length > 0
      ? {
          provenance: {
            ...(provenances.some((p) => p.fields) ? { fields } : {}),
            ...(provenances.some((p) => p.fields_omitted)
              ? { fields_omitted: provenances.reduce((n, p) => n + (p.fields_omitted ?? 0), 0) }
              : {}),
            ungrounded_fields: provenances.reduce((n, p) => n + p.ungrounded_fields, 0),
          },
        }
      : {}),
    completeness: {
      ...(pages.some((p) => p.extraction.completeness?.content_truncated) ? { content_truncated: true as const } : {}),
      items,
    },
    warnings: mergedWarnings(pages, items, stopped),
    ...(first.run ? { run: { isByok: first.run.isByok, attempts: pages.flatMap((p) => p.extraction.run?.attempts ?? []) } } : {}),
    pagination: report,
  };
}

/** A value's path in the merged answer: a list item's index moved to its merged place; other fields only from the first page. */
function renumbered(path: string, moved: Map<string, Map<number, number>>, root: boolean, firstPage: boolean): string | null {
  const match = root ? /^\[(\d+)\](.*)$/.exec(path) : LEAF_INDEX.exec(path);
  if (!match) return firstPage ? path : null;
  const [list, index, rest] = root ? ['$', match[1], match[2]] : [match[1], match[2], match[3]];
  const map = moved.get(list);
  if (!map) return firstPage ? path : null;
  const to = map.get(Number(index));
  if (to === undefined) return null;
  return root ? `[${to}]${rest}` : `${list}[${to}]${rest}`;
}

/**
 * A list over the pages: expected is the pages' counts added (null when a page had none), chunks the model answers
 * added; complete only when every page's list was and the pages reached the list's end (no next link).
 */
function listReport(path: string, pages: PagedPage[], extracted: number, endReached: boolean): ItemsReport {
  const reports = pages.map((p) => p.extraction.completeness?.items?.find((r) => r.path === path));
  const expected = reports.every((r) => r?.expected !== null && r?.expected !== undefined)
    ? reports.reduce((n, r) => n + (r?.expected ?? 0), 0)
    : null;
  const chunks = reports.reduce((n, r) => n + (r?.chunks ?? 1), 0);
  const complete =
    !endReached || reports.some((r) => r?.complete === false) ? false : reports.every((r) => r?.complete === true) ? true : null;
  const uncertain = expected !== null && reports.some((r) => r?.expected_uncertain === true);
  return { path, expected, extracted, chunks, complete, ...(uncertain ? { expected_uncertain: true as const } : {}) };
}

function mergedWarnings(pages: PagedPage[], items: ItemsReport[], stopped: PaginationStop): Warning[] {
  const out: Warning[] = [];
  const said = new Set<string>();
  const add = (w: Warning) => {
    const key = `${w.code}\n${w.message}\n${w.location ?? ''}`;
    if (!said.has(key)) {
      said.add(key);
      out.push(w);
    }
  };
  // The pages' own warnings but their list_incomplete: the merged lists say theirs once, over all pages.
  for (const page of pages) for (const w of page.extraction.warnings ?? []) if (w.code !== 'list_incomplete') add(w);
  for (const r of items.filter((i) => i.complete === false)) {
    const where = r.path === '$' ? 'body.schema' : `body.schema.${r.path}`;
    const list = r.path === '$' ? 'The list' : `The list \`${r.path}\``;
    const counts =
      r.expected !== null
        ? `the ${pages.length} pages list ${r.expected} items and the answer has ${r.extracted}`
        : `the answer has ${r.extracted} items`;
    add({ code: 'list_incomplete', message: `${list} is incomplete: ${counts}; ${stopText(stopped, pages.length)}.`, location: where });
  }
  return out;
}

function stopText(stopped: PaginationStop, pages: number): string {
  switch (stopped.reason) {
    case 'no_next_link':
      return `a page's items were not all extracted (metadata.items)`;
    case 'max_pages':
      return `pagination stopped at max_pages (${pages}) and ${stopped.next} was not read: raise paginate.max_pages for the rest`;
    default:
      return `pagination stopped before ${stopped.next}: ${stopped.why}`;
  }
}
