import type { ItemGroup } from './item-blocks';

/** Items one model answer is asked for at most unless the model's output budget says fewer (docs/long-lists.md "Chunks"). */
export const DEFAULT_ITEMS_PER_CALL = 50;

/** The share of a model's output budget the items of one chunk may fill (the rest: JSON syntax, the other fields). */
const OUTPUT_SHARE = 0.5;
/** The share of a model's content budget one chunk may fill. */
const CONTEXT_SHARE = 0.8;

/** Characters per token, for sizing chunks (the content sent is still fitted by real token counts). */
const CHARS_PER_TOKEN = 4;

export interface ChunkBudget {
  /** The model's output limit (its max_tokens). */
  outputTokens: number;
  /** What the model's context leaves for the page's text. */
  contentTokens: number;
  /** Items one answer is asked for at most. */
  itemsPerCall: number;
}

/** A run of the group's items, from `from` (inclusive) to `to` (exclusive). */
export interface ItemRange {
  from: number;
  to: number;
}

/**
 * Splits a group's items into runs that fit one answer each: no more than the budget's items per call, no more item
 * text than half the model's output budget (an answer repeats about as much as it reads), no more text than the
 * content budget allows. Runs are as even as the limits let them be, so no chunk is a sliver.
 */
export function planChunks(markdown: string, group: ItemGroup, budget: ChunkBudget): ItemRange[] {
  const n = group.items.length;
  const first = group.items[0].start;
  const last = group.items[n - 1].end;
  const headTail = first + (markdown.length - last);
  const itemTokens = (last - first) / CHARS_PER_TOKEN;
  const byOutput = Math.ceil(itemTokens / Math.max(1, budget.outputTokens * OUTPUT_SHARE));
  const byContext = Math.ceil((itemTokens + headTail / CHARS_PER_TOKEN) / Math.max(1, budget.contentTokens * CONTEXT_SHARE));
  const byCount = Math.ceil(n / Math.max(1, budget.itemsPerCall));
  const chunks = Math.min(n, Math.max(1, byOutput, byContext, byCount));
  const ranges: ItemRange[] = [];
  for (let c = 0; c < chunks; c++) ranges.push({ from: Math.floor((c * n) / chunks), to: Math.floor(((c + 1) * n) / chunks) });
  return ranges;
}

/**
 * What one chunk sends: the page's text before the list with the first chunk, the text after it with the last, and in
 * between the chunk's items (with the group's prefix, a table's header, when the chunk does not start at the list's
 * head). The other fields of the schema are answered from the first and last chunks (list-merge.ts).
 */
export function chunkContent(markdown: string, group: ItemGroup, range: ItemRange): string {
  const items = group.items;
  const start = items[range.from].start;
  const end = items[range.to - 1].end;
  const head = range.from === 0 ? markdown.slice(0, start) : group.prefix;
  const tail = range.to === items.length ? markdown.slice(end) : '';
  return `${head}${markdown.slice(start, end)}${tail}`;
}
