/**
 * A run of list items or sections is found by how its items open; what a page puts at its ends or after it can open
 * alike and still be no item (docs/long-lists.md "Counting items"): a second view of the same items (a grid and a list
 * view of one catalogue), a sort menu or a promotion strip before the items, a store-finder after them. Two rules, on
 * lists and runs of sections only (a table's rows and runs of paragraphs are counted by their own shapes):
 * - a stretch of at least MIN_REPEAT consecutive items with distinct openings that open, item by item and in order,
 *   as an earlier stretch of the group does, is that stretch again: not counted;
 * - items at its start whose traits (a linked title, a heading inside) differ from those of more than half of the
 *   group's items are left out, as long as MIN_ITEMS remain;
 * - up to MAX_TAIL items at its end whose structure (tail.ts) is not the one every item before them shares are
 *   left out (a "Back to all jobs" link after job cards, a store-finder's headings after product headings).
 */
import type { ItemGroup, ItemSpan } from './item-blocks';
import { withoutOddTail } from './item-tail';

/** Fewest items a repeated stretch holds (two items named alike are a coincidence, three in order a second view). */
const MIN_REPEAT = 3;
/** Items a group keeps at least (item-blocks.ts MIN_ITEMS). */
const MIN_KEPT = 3;
/** Characters of an item's opening compared (its first words, markup and link targets left out). */
const KEY_CHARS = 24;

const SUB_HEADING = /^\s*#{1,6}\s+\S/;

/** The group without a repeated view of its items and without odd items at its ends; the group itself when none. */
export function refinedGroup(markdown: string, group: ItemGroup): ItemGroup {
  if (group.kind !== 'list' && group.kind !== 'sections') return group;
  const texts = (items: ItemSpan[]) => items.map((item) => markdown.slice(item.start, item.end));
  const distinct = withoutRepeats(group.items, texts(group.items).map(openingKey));
  const trimmed = withoutOddEnds(distinct, texts(distinct).map(traitsOf));
  const items = withoutOddTail(markdown, group.kind, trimmed);
  if (items.length === group.items.length) return group;
  // A repeated view is the same list's text (its weight stays the group's); the items left out at its ends are not.
  const left = [...group.items.slice(0, group.items.indexOf(items[0])), ...trimmed.slice(items.length)];
  return { ...group, items, text: group.text - left.reduce((sum, i) => sum + (i.end - i.start), 0) };
}

function plain(text: string): string {
  return text
    .replace(/\]\([^)]*\)/g, ']')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** An item's first words: its text without bullet, heading marks, link targets or punctuation. */
function openingKey(text: string): string {
  const body = text.replace(/^\s*(?:[-*+]|\d{1,9}[.)]|#{1,6})\s+/, '');
  return plain(body).slice(0, KEY_CHARS);
}

/** Items that repeat, in order, an earlier stretch of MIN_REPEAT or more items of the group (by their openings). */
function withoutRepeats(items: ItemSpan[], keys: string[]): ItemSpan[] {
  const firstAt = new Map<string, number>();
  const dropped = new Set<number>();
  let j = 0;
  while (j < keys.length) {
    const earlier = keys[j] === '' ? undefined : firstAt.get(keys[j]);
    if (earlier !== undefined) {
      // A stretch of distinct openings (items that all open alike, "View profile", repeat nothing).
      const stretch = new Set<string>();
      let length = 0;
      while (
        j + length < keys.length &&
        earlier + length < j &&
        keys[earlier + length] === keys[j + length] &&
        keys[j + length] !== '' &&
        !stretch.has(keys[j + length])
      )
        stretch.add(keys[j + length++]);
      if (length >= MIN_REPEAT) {
        for (let k = 0; k < length; k++) dropped.add(j + k);
        j += length;
        continue;
      }
    }
    if (!firstAt.has(keys[j])) firstAt.set(keys[j], j);
    j++;
  }
  if (dropped.size === 0 || items.length - dropped.size < MIN_KEPT) return items;
  return items.filter((_item, index) => !dropped.has(index));
}

/** What an item is made of: a linked title, a heading inside it. */
function traitsOf(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const [first = '', ...rest] = lines;
  const linked = /\]\([^)]*\)/.test(first) ? 'link' : '';
  const heading = rest.some((line) => SUB_HEADING.test(line)) ? 'heading' : '';
  return `${linked}/${heading}`;
}

/**
 * The group without its leading items whose traits differ from those more than half of its items share (the last
 * item's span runs on to what follows the list, so its traits say little of it: the end is left as it is).
 */
function withoutOddEnds(items: ItemSpan[], traits: string[]): ItemSpan[] {
  const counts = new Map<string, number>();
  for (const t of traits) counts.set(t, (counts.get(t) ?? 0) + 1);
  const [common, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  if (count * 2 <= items.length || count === items.length) return items;
  let from = 0;
  const to = items.length;
  while (from < to && traits[from] !== common) from++;
  return to - from >= MIN_KEPT ? items.slice(from, to) : items;
}
