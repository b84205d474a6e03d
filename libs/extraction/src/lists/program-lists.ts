import type { Warning } from '@app/core';
import type { JsonSchemaObject } from '@app/schema';
import { incompleteWarnings, itemsReports, type ItemsReport } from './list-merge';
import { pageLists } from './list-paths';

/**
 * The lists a learned program filled (docs/learned-extraction.md, docs/long-lists.md "Learned lists"): checked
 * against the page's count as a model's answer is, with no model answer (`chunks: 0`). A program whose list selector
 * matched fewer items than the page holds makes an answer that says so, never a silent partial one. Null when the
 * schema asks for no list of objects.
 */
export function programListReport(
  markdown: string,
  schema: JsonSchemaObject,
  data: unknown,
): { items: ItemsReport[]; warnings: Warning[] } | null {
  const lists = pageLists(markdown, schema);
  if (lists.length === 0) return null;
  const items = itemsReports(data, lists, new Map(lists.map((l) => [l.path, 0])), false);
  return { items, warnings: incompleteWarnings(items) };
}
