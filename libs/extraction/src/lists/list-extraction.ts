import type { CoercedToNull } from '../coerce';
import type { ExtractOutput } from '../extraction.service';
import type { ItemSpan } from './item-blocks';
import { chunkContent, planChunks, type ChunkBudget, type ItemRange } from './list-chunks';
import { itemsReports, mergeChunks, type ChunkAnswer, type ItemsReport } from './list-merge';
import { listAt, type PageList } from './list-paths';

/** Chunks of one page asked at once (docs/long-lists.md "Chunks"): a page's calls never crowd out the other jobs' for long. */
export const LIST_PARALLEL_CALLS = 4;

/** Which part of a chunked page a call is given (the prompt says so: extraction.service.ts). */
export interface ChunkPart {
  /** The list's path (`$` or a field). */
  path: string;
  /** The chunk's items, 1-based and inclusive, of `total`. */
  first: number;
  last: number;
  total: number;
}

export interface ListRunInput {
  markdown: string;
  lists: PageList[];
  budget: ChunkBudget;
  /** One model call on `content` (the page, or a chunk of it with its part). */
  call(content: string, part: ChunkPart | null): Promise<ExtractOutput>;
  /** Stop asking for more chunks once the page's calls cost more than this (the job's cost cap). */
  maxCostUsd?: number | null;
  parallel?: number;
}

export interface ListRun {
  data: unknown;
  /** Every model call's output, in page order (their usages add up to the page's). */
  outs: ExtractOutput[];
  items: ItemsReport[];
  contentTruncated: boolean;
  /** The answers' coerced-to-null values, at their paths in the merged data. */
  nulled: CoercedToNull[];
  /** Items dropped at chunk seams as repeats of the item before the seam. */
  seamDuplicates: number;
  /** The cost cap stopped chunks that had items left to ask for. */
  budgetStopped: boolean;
}

/**
 * A page whose schema asks for a list, extracted whole (docs/long-lists.md): the page's longest list is split into
 * chunks along its items when they do not fit one answer or the page does not fit the model's context; each chunk is
 * asked for its items (up to LIST_PARALLEL_CALLS chunks at once) and a chunk answered short is asked again for the
 * items after the ones it answered, as long as each answer adds items. The answers are merged in page order.
 */
export async function extractLists(input: ListRunInput): Promise<ListRun> {
  const { markdown, lists } = input;
  const primary = lists.filter((l) => l.group).sort((a, b) => b.group!.items.length - a.group!.items.length)[0];
  if (!primary) {
    const out = await input.call(markdown, null);
    return {
      data: out.data,
      outs: [out],
      items: itemsReports(out.data, lists, new Map(), out.contentTruncated),
      contentTruncated: out.contentTruncated,
      nulled: out.nulled,
      seamDuplicates: 0,
      budgetStopped: false,
    };
  }
  const group = primary.group!;
  const total = group.items.length;
  const ranges = planChunks(markdown, group, input.budget);
  let cost = 0;
  let budgetStopped = false;
  const overBudget = () => input.maxCostUsd !== null && input.maxCostUsd !== undefined && cost > input.maxCostUsd;
  const runRange = async (range: ItemRange): Promise<Array<{ answer: ChunkAnswer; out: ExtractOutput }>> => {
    const answered: Array<{ answer: ChunkAnswer; out: ExtractOutput }> = [];
    let from = range.from;
    while (from < range.to) {
      if (overBudget()) {
        budgetStopped = true;
        break;
      }
      const whole = ranges.length === 1 && from === 0;
      const content = whole ? markdown : chunkContent(markdown, group, { from, to: range.to });
      const part = whole ? null : { path: primary.path, first: from + 1, last: range.to, total };
      const out = await input.call(content, part);
      cost += out.costUsd;
      answered.push({ answer: { data: out.data, from }, out });
      const got = listAt(out.data, primary.path) ?? [];
      if (got.length === 0) break;
      // The next call starts after the item the answer ended with (a model that left items out of the middle is not
      // asked for the ones it did answer again); without a match, after as many items as it answered.
      const last = lastAnswered(markdown, group.items, from, range.to, got[got.length - 1]);
      from = last !== null ? last + 1 : from + got.length;
    }
    return answered;
  };
  const perRange = await inParallel(ranges, input.parallel ?? LIST_PARALLEL_CALLS, runRange);
  const answered = perRange.flat();
  const { data, seamDuplicates, offsets } = mergeChunks(
    answered.map((a) => a.answer),
    primary.path,
    lists,
  );
  const outs = answered.map((a) => a.out);
  const contentTruncated = outs.some((o) => o.contentTruncated);
  return {
    data,
    outs,
    items: itemsReports(data, lists, new Map([[primary.path, outs.length]]), contentTruncated),
    contentTruncated,
    nulled: outs.flatMap((o, i) => nulledInMerged(o.nulled, primary.path, offsets[i])),
    seamDuplicates,
    budgetStopped,
  };
}

/**
 * The item of `items[from..to)` an answered item was read from: the one whose text holds most of its values (the
 * last such item), or null when none holds any.
 */
export function lastAnswered(markdown: string, items: ItemSpan[], from: number, to: number, answered: unknown): number | null {
  const values = leaves(answered);
  if (values.length === 0) return null;
  let best: number | null = null;
  let bestScore = 0;
  for (let i = from; i < to; i++) {
    const text = markdown.slice(items[i].start, items[i].end);
    const score = values.reduce((n, v) => n + (text.includes(v) ? v.length : 0), 0);
    if (score > 0 && score >= bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

/** An answered item's texts and numbers as they may be written on the page (short ones say nothing). */
function leaves(value: unknown): string[] {
  if (typeof value === 'string') return value.trim().length >= 3 ? [value.trim()] : [];
  if (typeof value === 'number') return String(value).length >= 2 ? [String(value)] : [];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [];
}

/** An answer's nulled list values at their index in the merged list (other fields' are not carried: they may come from another chunk). */
function nulledInMerged(nulled: CoercedToNull[], path: string, offset: number): CoercedToNull[] {
  return nulled.flatMap((n) => {
    const at = path === '$' ? 0 : 1;
    const index = n.path[at];
    if ((path !== '$' && n.path[0] !== path) || typeof index !== 'number' || index + offset < 0) return [];
    return [{ ...n, path: [...n.path.slice(0, at), index + offset, ...n.path.slice(at + 1)] }];
    return [];
  });
}

/** `run` over `items` with at most `limit` at once; results in the items' order. */
async function inParallel<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
