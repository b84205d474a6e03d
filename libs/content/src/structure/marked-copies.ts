import { findFirst, isElement, solidLength, textData, typeOf, visibleText, walk, type Document, type Element } from '../dom';
import { isInvisible, UNRENDERED_TAGS } from '../visibility';
import { normalizedLength } from '../readability/text-measure';
import { lastSolidLength, textLengths } from './text-lengths';

/** A block shorter than this (characters) may repeat for a reason (a label, a price, a short answer). */
const COPY_MIN_TEXT = 120;

/** Elements whose copies are looked for: blocks, not inline runs. */
const BLOCKS = new Set(['div', 'section', 'article', 'p', 'ul', 'ol', 'dl', 'li', 'table', 'figure', 'blockquote']);

/** A carousel's cloned slide (`slick-cloned`, `swiper-slide-duplicate`, `splide__slide--clone`, Owl's `cloned`). */
const CLONE_CLASS = /(?:^|[-_])(?:clone[ds]?|duplicate)(?:$|[-_])/i;
/**
 * The screen-reader copies (`sr-only`, `visually-hidden`). Not a bare `hidden`: a forum's thread header holds its first
 * post in one, and leaving that copy out moved the grab off the posts.
 */
const HIDDEN_CLASS = /^(?:sr-only|visually-hidden|screen-reader-text)$/;
/** Shown on narrow screens only: the mobile copy of a section (`md:hidden`, `d-lg-none`, `hidden-md`, `hide-for-large`). */
const NARROW_ONLY_CLASS =
  /^(?:(?:sm|md|lg|xl):hidden|d-(?:sm|md|lg|xl)-none|hidden-(?:sm|md|lg)|visible-xs(?:-\w+)?|hide-for-(?:medium|large)(?:-up)?|show-for-small(?:-only)?|is-hidden-(?:tablet|desktop)|(?:mobile|phone)[-_]only|hidden[-_]desktop|hide[-_]desktop)$/;
/** A class that shows the element from some screen width on (`hidden md:block`, `d-none d-lg-block`): the wide-screen copy. */
const SHOWN_FROM =
  /^(?:(?:sm|md|lg|xl|2xl):(?:block|flex|grid|inline|inline-block|inline-flex|table|contents)|d-(?:sm|md|lg|xl|xxl)-(?:block|flex|grid|inline|inline-block|inline-flex|table))$/;

/** How much of a copy a reader of the page does not see: 0 shown, 1 shown on narrow screens only, 2 cloned or hidden. */
type Mark = 0 | 1 | 2;

/**
 * Blocks that repeat another block's text word for word where the copy is cloned or hidden: a carousel's cloned
 * slides, a section drawn again for narrow screens, a screen-reader copy, an `inert` duplicate. Of each group of
 * copies, the least marked stay (the one a reader sees) and the others are left out; copies that are all shown
 * alike all stay (a tab drawn twice, a parameter described under several endpoints are content each time). A mark
 * counts on the block or on any element above it (a slide's class sits on its wrapper). Only blocks of
 * COPY_MIN_TEXT characters or more, outermost first: a copied section goes whole.
 */
export function markedCopies(document: Document, isSkipped: (el: Element) => boolean): Set<Element> {
  const body = findFirst(document, 'body');
  if (!body) return new Set();
  const copies = new Set<Element>();
  for (const group of copyGroups(body, isSkipped)) {
    const marks = group.map((el) => markOf(el, body));
    const least = Math.min(...marks);
    group.forEach((el, i) => {
      if (marks[i] > least) copies.add(el);
    });
  }
  return copies;
}

/**
 * The blocks of `body` whose visible text another block repeats word for word, grouped by that text in document
 * order: only blocks (BLOCKS) of COPY_MIN_TEXT characters or more, outermost first (a copy's parts are not compared
 * again), a wrapper whose text is all in one child standing for that child. Groups of two or more only. Shared by
 * the marked copies here and a product page's copies (product-copies.ts).
 */
export function copyGroups(body: Element, isSkipped: (el: Element) => boolean): Element[][] {
  const { counts, sizes, bySize } = census(body, isSkipped);
  // Reading a block's text is the cost here, so a block is read only when another block it could repeat has as
  // many characters other than white space in its visible text (a word-for-word copy has): most blocks have none.
  let repeated = false;
  for (const blocks of bySize.values()) repeated ||= blocks >= 2;
  if (!repeated) return [];
  const groups = new Map<string, Element[]>();
  walk(body, (el) => {
    if (isSkipped(el)) return false;
    const count = counts.get(el);
    if (count === undefined) return false;
    if (bySize.get(sizes.get(el))! < 2 || !compared(el, counts)) return true;
    const text = visibleText(el);
    const group = groups.get(text);
    if (group === undefined) {
      groups.set(text, [el]);
      return true;
    }
    // A copy's parts are copies of the first one's parts: they are not compared again.
    group.push(el);
    return false;
  });
  return [...groups.values()].filter((group) => group.length >= 2);
}

/** Whether `el` is compared: a block (BLOCKS), not a wrapper whose text is all in one child. */
function compared(el: Element, counts: ReadonlyMap<Element, number>): boolean {
  return BLOCKS.has(el.name) && !onlyChildWrapper(el, counts);
}

/**
 * In one post-order pass over `root`, for the elements holding COPY_MIN_TEXT characters or more (the only ones
 * compared, or looked into: every element above such an element holds as much): textCensus's text count (elements
 * `isSkipped` leaves out, and those below them, count nothing and get no entry); how many characters other than
 * white space the element's visible text holds, read as visibleText reads it (the element itself always, hidden
 * elements below it not; skipped ones are still read, as visibleText reads them; scripts and styles get no size:
 * none is ever in BLOCKS); and, by that size, how many of the compared blocks below `root` hold it.
 */
function census(
  root: Element,
  isSkipped: (el: Element) => boolean,
): { counts: Map<Element, number>; sizes: Map<Element, number | undefined>; bySize: Map<number | undefined, number> } {
  const counts = new Map<Element, number>();
  const sizes = new Map<Element, number | undefined>();
  const bySize = new Map<number | undefined, number>();
  // The path from `root` to the element being read, one slot per level (no object per element): the element, its
  // next child, its text count (-1 when it or an element above it is skipped: not counted) and its size (-1 under a
  // script or a style: not sized).
  const path: Element[] = [root];
  const next: number[] = [0];
  const texts: number[] = [0];
  const sized: number[] = [0];
  let top = 0;
  while (top >= 0) {
    const children = path[top].children;
    if (next[top] < children.length) {
      const child = children[next[top]++];
      if (typeOf(child) === 'text') {
        const data = textData(child);
        if (texts[top] >= 0 && sized[top] >= 0) {
          texts[top] += textLengths(data);
          sized[top] += lastSolidLength();
        } else if (texts[top] >= 0) texts[top] += normalizedLength(data);
        else if (sized[top] >= 0) sized[top] += solidLength(data);
      } else if (isElement(child)) {
        const text = texts[top] >= 0 && !isSkipped(child) ? 0 : -1;
        const size = sized[top] >= 0 && !UNRENDERED_TAGS.has(child.name) ? 0 : -1;
        if (text >= 0 || size >= 0) {
          top++;
          path[top] = child;
          next[top] = 0;
          texts[top] = text;
          sized[top] = size;
        }
      }
      continue;
    }
    const el = path[top];
    const text = texts[top];
    const size = sized[top] >= 0 ? sized[top] : undefined;
    top--;
    if (text >= COPY_MIN_TEXT) {
      counts.set(el, text);
      sizes.set(el, size);
      if (el !== root && compared(el, counts)) bySize.set(size, (bySize.get(size) ?? 0) + 1);
    }
    if (top < 0) break;
    if (text > 0 && texts[top] >= 0) texts[top] += text;
    if (size !== undefined && size > 0 && sized[top] >= 0 && !isInvisible(el)) sized[top] += size;
  }
  return { counts, sizes, bySize };
}

/** The strongest mark on the element or above it, up to the body. */
function markOf(el: Element, body: Element): Mark {
  let mark: Mark = 0;
  for (let node: Element | null = el; node && node !== body; node = node.parent as Element | null) {
    const own = ownMark(node);
    if (own === 2) return 2;
    if (own > mark) mark = own;
  }
  return mark;
}

function ownMark(el: Element): Mark {
  if (el.attribs.inert !== undefined) return 2;
  const cls = el.attribs.class;
  if (cls === undefined) return 0;
  const names = cls.split(/\s+/);
  if (names.some((n) => CLONE_CLASS.test(n))) return 2;
  if (names.some((n) => SHOWN_FROM.test(n))) return 0;
  if (names.some((n) => HIDDEN_CLASS.test(n))) return 2;
  return names.some((n) => NARROW_ONLY_CLASS.test(n)) ? 1 : 0;
}

/**
 * A wrapper whose text is all in one child element: the child stands for it (its text is not read twice). Only a
 * block child does (a paragraph whose text is all in one `<span>`, a section whose text is all in a nested `<body>`
 * are compared themselves: the child is no block and would never be).
 */
function onlyChildWrapper(el: Element, counts: ReadonlyMap<Element, number>): boolean {
  const text = counts.get(el) ?? 0;
  for (const child of el.children) {
    const count = counts.get(child as Element);
    if (count === text) return BLOCKS.has((child as Element).name) || onlyChildWrapper(child as Element, counts);
  }
  return false;
}
