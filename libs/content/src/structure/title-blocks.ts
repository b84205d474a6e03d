import { childElements, findFirst, isElement, visibleLength, walk, type AnyNode, type Element } from '../dom';

/** An item's title block is short (its heading, a date, an author): longer, the block left out is more than a title. */
const TITLE_BLOCK_MAX_TEXT = 400;

/** A title block's headings: the title, and a kicker or a series' name above it. */
const TITLE_MAX_HEADINGS = 2;

/** Fewest repeated items: fewer are a page's own headings, left to the cleaner. */
const RUN_MIN_ITEMS = 3;

/** How many levels above the title block its item may sit (the title's wrapper, the card's body, the card). */
const ITEM_MAX_DEPTH = 3;

const HEADING = /^h[1-6]$/;

/**
 * An item's title block left out of the chosen content, kept. A listing's item (a story card, a search result, a
 * shop's category tile) starts with its title: a heading holding a link to the item, often with a date or an
 * author beside it. Alone that block is mostly link text, and readability's conditional cleaning drops it as
 * link furniture (readability/conditional-cleaner.ts), leaving the item without its title. A block left out is
 * such a title block when it is short (under TITLE_BLOCK_MAX_TEXT characters) and holds a heading holding a link
 * (with at most a kicker's heading beside it: TITLE_MAX_HEADINGS), and its item (the block or one of its ITEM_MAX_DEPTH closest blocks, all shown) is one of at least
 * RUN_MIN_ITEMS siblings of one kind (tag and first class name) that each hold a linked heading of the same level, each
 * leading to an address of its own (a post's author heading links one poster from several posts):
 * a title repeated over a grid is what the grid lists, not a menu. Returns the left-out blocks to show again:
 * the title block and, inside it, the blocks holding its heading.
 */
export function titleBlocks(roots: readonly AnyNode[], removed: ReadonlySet<Element>, isSkipped: (el: Element) => boolean): Set<Element> {
  const kept = new Set<Element>();
  const rootSet = new Set(roots);
  // The items of a grid are each a title block asking of the same run: each run is read once.
  const runs: Runs = new Map();
  // The blocks left out are a few dozen, the content thousands of elements: each block is read, not the content.
  for (const el of removed) {
    if (isSkipped(el) || !reached(el, rootSet, removed, isSkipped)) continue;
    const heading = titleHeadings(el).find((h) => inItemRun(el, h.name, runs));
    if (heading) {
      kept.add(el);
      for (let node = heading.parent; node && node !== el && isElement(node); node = node.parent) if (removed.has(node)) kept.add(node);
      if (removed.has(heading)) kept.add(heading);
    }
  }
  return kept;
}

/**
 * Whether a walk of the content would come to `el`: it lies under a root (not being one outside every other) and
 * nothing between them is left out or skipped.
 */
function reached(el: Element, roots: ReadonlySet<AnyNode>, removed: ReadonlySet<Element>, isSkipped: (el: Element) => boolean): boolean {
  for (let node = el.parent; node; node = node.parent) {
    if (roots.has(node)) return true;
    if (!isElement(node) || removed.has(node) || isSkipped(node)) return false;
  }
  return false;
}

/** The linked headings of a short block holding a title and at most a kicker. */
function titleHeadings(block: Element): Element[] {
  if (visibleLength(block, TITLE_BLOCK_MAX_TEXT + 1) > TITLE_BLOCK_MAX_TEXT) return [];
  const headings = headingsIn(block);
  if (headings.length > TITLE_MAX_HEADINGS) return [];
  return headings.filter((heading) => headingLink(heading) !== undefined);
}

/**
 * The link of a linked heading: one inside it (`<h3><a>`), else the link it sits in (a card drawn as one link
 * around its picture, title and date), up to `within` when given.
 */
function headingLink(heading: Element, within?: Element): Element | undefined {
  const inside = findFirst(heading, 'a');
  if (inside) return inside;
  for (let node = heading.parent; node && isElement(node); node = node.parent) {
    if (node.name === 'a') return node;
    if (node === within) return undefined;
  }
  return undefined;
}

function headingsIn(root: Element): Element[] {
  const found: Element[] = [];
  walk(root, (el) => {
    if (!HEADING.test(el.name)) return true;
    found.push(el);
    return false;
  });
  return found;
}

/** Whether `block` or one of its closest blocks is an item of a run of RUN_MIN_ITEMS siblings titled by a linked `level` heading. */
function inItemRun(block: Element, level: string, runs: Runs): boolean {
  let node: Element = block;
  for (let depth = 0; depth <= ITEM_MAX_DEPTH; depth++) {
    const parent = node.parent;
    if (!parent || !isElement(parent)) return false;
    const run = itemRun(parent, kindOf(node), level, runs);
    if (run.items.size >= RUN_MIN_ITEMS && run.items.has(node)) return run.ownAddresses;
    node = parent;
  }
  return false;
}

/** The children of `parent` of one kind titled by a linked heading of `level`, and whether each has an address of its own. */
interface ItemRun {
  items: ReadonlySet<Element>;
  ownAddresses: boolean;
}

/** The runs read so far, by parent, then by heading level and kind. */
type Runs = Map<Element, Map<string, ItemRun>>;

function itemRun(parent: Element, kind: string, level: string, runs: Runs): ItemRun {
  let byKind = runs.get(parent);
  if (!byKind) {
    byKind = new Map();
    runs.set(parent, byKind);
  }
  const key = `${level} ${kind}`;
  let run = byKind.get(key);
  if (!run) {
    const items = childElements(parent).filter((sibling) => kindOf(sibling) === kind && titleLink(sibling, level) !== undefined);
    // Each item is titled by its own address (a post's author heading links one poster from several posts); asked
    // only of a run long enough.
    const own = items.length >= RUN_MIN_ITEMS && new Set(items.map((item) => titleLink(item, level))).size === items.length;
    run = { items: new Set(items), ownAddresses: own };
    byKind.set(key, run);
  }
  return run;
}

/** The address of an item's first heading of `level`, when it holds a link. */
function titleLink(item: Element, level: string): string | undefined {
  const heading = findFirst(item, level);
  const link = heading && headingLink(heading, item);
  return link ? (link.attribs.href ?? '').trim() : undefined;
}

/** A block's kind: its tag and first class name, digits left out. */
function kindOf(el: Element): string {
  const first = (el.attribs.class ?? '').trim().split(/\s+/)[0] ?? '';
  return `${el.name}.${first.replace(/\d+/g, '')}`;
}
