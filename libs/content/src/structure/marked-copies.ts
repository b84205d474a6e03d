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
  // Copies are left out only for a mark, on them or above them below the body: a page marking nothing (about half
  // of them) has none to leave out, and its blocks are not read.
  if (!marksAny(body)) return copies;
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
  const blocks = census(body, isSkipped);
  // Reading a block's text is the cost here, so a block is read only when another block it could repeat has as
  // many characters other than white space in its visible text (a word-for-word copy has): most blocks have none.
  let repeated = false;
  for (const count of blocks.bySize.values()) repeated ||= count >= 2;
  if (!repeated) return [];
  // The blocks in document order: `order[n]` is the block the census's walk met n-th (-1 for an element holding
  // less text). Every element above a block holds as much text, so these are what a walk of `body` meets that does
  // not look into a skipped element nor into one of fewer than COPY_MIN_TEXT characters.
  const { elements, starts, ends, sizes, compared, bySize } = blocks;
  const order = new Int32Array(blocks.walked).fill(-1);
  for (let i = 0; i < elements.length; i++) order[starts[i]] = i;
  const groups = new Map<string, Element[]>();
  // From 1: `body` itself, met first, is not compared.
  for (let n = 1; n < order.length; n++) {
    const i = order[n];
    if (i < 0 || !compared[i] || bySize.get(sizes[i])! < 2) continue;
    const el = elements[i];
    const text = visibleText(el);
    const group = groups.get(text);
    if (group === undefined) {
      groups.set(text, [el]);
      continue;
    }
    // A copy's parts are copies of the first one's parts: they are not compared again.
    group.push(el);
    n = ends[i] - 1;
  }
  return [...groups.values()].filter((group) => group.length >= 2);
}

/** The elements of COPY_MIN_TEXT characters or more under a root (census). */
interface Blocks {
  /** The elements, each after the ones below it. */
  elements: Element[];
  /** Where the census's walk met each element (the root first, at 0), and where it met the next one not below it. */
  starts: number[];
  ends: number[];
  /** The characters other than white space in each one's visible text (-1 under a script or a style: not sized). */
  sizes: number[];
  /**
   * Whether each one is compared: a block (BLOCKS), not a wrapper whose text is all in one child element that
   * stands for it (a block child, or a wrapper itself: its text is not read twice). A paragraph whose text is all
   * in one `<span>`, a section whose text is all in a nested `<body>` are compared themselves: the child is no block.
   */
  compared: boolean[];
  /** By size, how many compared blocks below the root hold it. */
  bySize: Map<number, number>;
  /** How many elements the walk met, the root with them. */
  walked: number;
}

/**
 * In one post-order pass over `root`, the elements holding COPY_MIN_TEXT characters or more (the only ones
 * compared, or looked into: every element above such an element holds as much) by textCensus's text count
 * (elements `isSkipped` leaves out, and those below them, count nothing and are none of them); for each, how many
 * characters other than white space its visible text holds, read as visibleText reads it (the element itself
 * always, hidden elements below it not; skipped ones are still read, as visibleText reads them; scripts and styles
 * get no size: none is ever in BLOCKS), and whether it is compared; and, by that size, how many of the compared
 * blocks below `root` hold it. No look-up per element: what a wrapper's test reads of its children is passed up.
 */
function census(root: Element, isSkipped: (el: Element) => boolean): Blocks {
  const blocks: Blocks = { elements: [], starts: [], ends: [], sizes: [], compared: [], bySize: new Map(), walked: 1 };
  // The path from `root` to the element being read, one slot per level (no object per element): the element, its
  // next child, where the walk met it, its text count (-1 when it or an element above it is skipped: not counted),
  // its size (-1 under a script or a style: not sized), and of its children of COPY_MIN_TEXT characters or more the
  // largest text count and whether that child stands for it.
  const path: Element[] = [root];
  const next: number[] = [0];
  const starts: number[] = [0];
  const texts: number[] = [0];
  const sized: number[] = [0];
  const widest: number[] = [0];
  const stands: boolean[] = [false];
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
          starts[top] = blocks.walked++;
          texts[top] = text;
          sized[top] = size;
          widest[top] = 0;
          stands[top] = false;
        }
      }
      continue;
    }
    const el = path[top];
    const text = texts[top];
    const size = sized[top];
    if (text >= COPY_MIN_TEXT) {
      // All of its text in one child: each child counted holds COPY_MIN_TEXT characters or more, so only the widest can.
      const wrapper = widest[top] === text && stands[top];
      const isCompared = BLOCKS.has(el.name) && !wrapper;
      blocks.elements.push(el);
      blocks.starts.push(starts[top]);
      blocks.ends.push(blocks.walked);
      blocks.sizes.push(size);
      blocks.compared.push(isCompared);
      if (el !== root && isCompared) blocks.bySize.set(size, (blocks.bySize.get(size) ?? 0) + 1);
      if (top > 0 && text > widest[top - 1]) {
        widest[top - 1] = text;
        stands[top - 1] = BLOCKS.has(el.name) || wrapper;
      }
    }
    top--;
    if (top < 0) break;
    if (text > 0 && texts[top] >= 0) texts[top] += text;
    if (size > 0 && sized[top] >= 0 && !isInvisible(el)) sized[top] += size;
  }
  return blocks;
}

/**
 * Whether an element below `body` may carry a mark (ownMark): an `inert` one, or a class attribute saying one of the
 * marks' words in any case (a mark's class names hold one). Stops at the first.
 */
export function marksAny(body: Element): boolean {
  let marked = false;
  walk(body, (el) => {
    if (marked) return false;
    if (el.attribs.inert !== undefined) marked = true;
    else {
      const cls = el.attribs.class;
      if (cls !== undefined && MARK_WORD.test(cls) && ownMark(el) > 0) marked = true;
    }
    return !marked;
  });
  return marked;
}

/** A word every mark's class name holds (CLONE_CLASS, HIDDEN_CLASS, NARROW_ONLY_CLASS), in any case. */
const MARK_WORD = /clone|duplicate|hid|none|only|screen-reader|visible-xs|show-for/i;

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
