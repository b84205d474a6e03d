/**
 * The end of a run of list items or sections (docs/long-lists.md "Counting items"): what follows a list can open as its
 * items do (a bullet, a heading of their level) and still be no item: a "Back to all jobs" link after the job cards, a
 * store-finder's "Store Direction" and "Description" headings after the product headings. Such a tail is told by its
 * structure, not its tag: an item's structure signature is what its first line holds (a link, a heading set inline),
 * whether a heading sits inside it (a list item's title), and whether its heading repeats the text just before it (a
 * card's caption, then its title). Items at the end whose signature is not the one every item before them shares
 * are left out, at most MAX_TAIL of them and only when that shared signature marks the items (it holds one of these
 * traits): a run of plain items, or one whose items differ among themselves (a catalogue where some titles are links
 * and some are not), keeps its end.
 */
import type { ItemGroup, ItemSpan } from './item-blocks';

/** Items left out at the end at most: a tail is a link or a few headings, not a second list. */
const MAX_TAIL = 3;
/** Items a group keeps at least (item-blocks.ts MIN_ITEMS). */
const MIN_KEPT = 3;

const LINK = /\]\([^)]*\)/;
const INLINE_HEADING = /(?:^|\s)#{1,6}\s+\S/;
const SUB_HEADING = /^\s*#{1,6}\s+\S/;
const MARKER = /^\s*(?:[-*+]|\d{1,9}[.)]|#{1,6})\s+/;

/** The group's items without a tail of items of another structure; the items themselves when there is none. */
export function withoutOddTail(markdown: string, kind: ItemGroup['kind'], items: ItemSpan[]): ItemSpan[] {
  if (kind !== 'list' && kind !== 'sections') return items;
  const signatures = items.map((item) => signatureOf(markdown, kind, item));
  let from = items.length;
  while (from > 0 && items.length - from < MAX_TAIL && signatures[from - 1] !== signatures[0]) from--;
  if (from === items.length || from < MIN_KEPT) return items;
  const shared = signatures[0];
  if (shared === '' || signatures.slice(0, from).some((s) => s !== shared)) return items;
  // The item before the tail must share it too (a tail of more than MAX_TAIL items is another list: kept).
  if (signatures.slice(from).some((s) => s === shared)) return items;
  return items.slice(0, from);
}

/**
 * What an item's structure holds: a link or a heading in its first line, a heading inside it, its caption before it.
 * A list item's title heading is one trait wherever it sits (right after the bullet or on the next line); a section's
 * heading line is the section's tag, so a heading set inside that line is a trait of its own.
 */
export function signatureOf(markdown: string, kind: ItemGroup['kind'], item: ItemSpan): string {
  const lines = markdown
    .slice(item.start, item.end)
    .split('\n')
    .filter((line) => line.trim() !== '');
  const [first = '', ...rest] = lines;
  const body = first.replace(MARKER, '');
  const traits = [
    LINK.test(body) ? 'link' : '',
    kind === 'sections' && INLINE_HEADING.test(body) ? 'inline-heading' : '',
    rest.some((line) => SUB_HEADING.test(line)) || (kind === 'list' && INLINE_HEADING.test(body)) ? 'heading' : '',
    SUB_HEADING.test(first) && plain(body) !== '' && plain(blockBefore(markdown, item.start)) === plain(body) ? 'caption' : '',
  ];
  return traits.filter((t) => t !== '').join('+');
}

/** The paragraph (or other block) right before an offset. */
function blockBefore(markdown: string, at: number): string {
  const before = markdown.slice(0, at).trimEnd();
  return before.slice(before.lastIndexOf('\n\n') + 1);
}

function plain(text: string): string {
  return text
    .replace(/\]\([^)]*\)/g, ']')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}
