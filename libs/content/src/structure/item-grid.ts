import { findFirst, isElement, textData, typeOf, walk, type Element } from '../dom';
import type { TextCount } from './text-census';

/**
 * Names a block of a page's furniture goes by even when it repeats: comments and replies, menus and their
 * columns, footers, sidebars, share bars, related or recommended stories, adverts. A run of these is more
 * furniture, not an item grid.
 */
const FURNITURE_RUN =
  /comment|repl(?:y|ies)|footer|menu|(?:^|[-_ .])nav|sidebar|social|share|related|recommend|breadcrumb|pagination|pager|sponsor|(?:^|[-_ .])ads?(?:$|[-_ .])|advert|newsletter|subscribe|signup|cookie|consent/i;

/**
 * A carousel or slider shows its slides one or a few at a time: a showcase beside the page's content
 * (testimonials, other products, featured stories), not the list the page is.
 */
const CAROUSEL = /carousel|slider|(?:^|[-_ ])slides?(?:$|[-_ ])|swiper|flickity|slick|splide|glide/i;

/** Fewest tiles a grid has. */
const GRID_MIN_ITEMS = 3;
/** A grid's tiles hold at least this share of their parent's text (the run is what the parent shows). */
const GRID_MIN_SHARE = 0.5;
/** A tile's links lead to at most this many places (the item's page; its author, brand or category): a menu's lead everywhere. */
const TILE_MAX_DESTINATIONS = 3;
/** How many levels a tile's wrappers (or a grid's) go. */
const TILE_MAX_DEPTH = 3;
/** How many levels above a tile's title bar its tile may sit (the bar's wrapper, the card's body, the card's link, the card). */
const TILE_PART_MAX_DEPTH = 4;
/** A block fills its parent when it holds this share of the parent's text. */
const TILE_MIN_FILL = 0.9;

/** Sibling tiles of one kind. */
interface Run {
  parent: Element;
  kind: string;
  items: Element[];
  text: number;
}

/**
 * An item grid's tiles (a shop's product cards, a listing's story teasers, a landing page's promo cards) look
 * like furniture one by one: each is a handful of short links (a menu), a `<figure>`, or is named for the kind of
 * block it is (`teaser`, `promo`, `banner`) with names readability reads as an article's furniture. Together
 * they are what the page lists (the region keeps them, structure/page-region.ts). A carousel is not such a grid
 * (CAROUSEL). A grid is a run of at least GRID_MIN_ITEMS siblings of one kind (tag and first
 * class name: a post's own classes name its categories) holding GRID_MIN_SHARE of their parent's text, none
 * named like a run of furniture (FURNITURE_RUN), each holding a link and its links leading to at most
 * TILE_MAX_DESTINATIONS places (an item's image, title and price all link to the item; a menu's links each lead
 * elsewhere).
 */
export class ItemGrid {
  private readonly grids = new Map<Element, Run[]>();

  constructor(private readonly counts: ReadonlyMap<Element, TextCount>) {}

  /**
   * Whether `el` is an item grid or a tile of one (so neither a menu nor furniture by its name or tag alone): a
   * tile, or what fills one (a card's `<figure>` inside its wrapper), or a block a grid fills (a promo section).
   */
  isTile(el: Element): boolean {
    const text = this.counts.get(el)?.text ?? 0;
    const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
    if (text === 0 || FURNITURE_RUN.test(names) || CAROUSEL.test(names)) return false;
    // What `el` fills, up to the tile.
    let node: Element = el;
    for (let level = 0; level <= TILE_MAX_DEPTH; level++) {
      const parent = node.parent;
      if (!parent || !isElement(parent)) break;
      if (this.gridsUnder(parent).some((run) => run.items.includes(node))) return true;
      if ((this.counts.get(parent)?.text ?? 0) * TILE_MIN_FILL > text) break;
      node = parent;
    }
    // A grid that fills `el` (a carousel's slides, a grid's wrapper).
    return this.holdsGrid(el, text, TILE_MAX_DEPTH);
  }

  /**
   * Whether `el` is a grid tile's title bar: it holds a heading (the item's title) and a tile sits up to
   * TILE_PART_MAX_DEPTH levels above it. Named for where it sits on the card (`card__header`), readability reads it
   * as a page's header. A tile's other parts named like furniture (its rating line, stock label, poster's details)
   * stay furniture.
   */
  isTitleBar(el: Element): boolean {
    const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
    if (FURNITURE_RUN.test(names) || CAROUSEL.test(names)) return false;
    if (!HEADINGS.some((h) => findFirst(el, h)) && !HEADING_TAG.test(el.name)) return false;
    let node: Element = el;
    for (let level = 0; level < TILE_PART_MAX_DEPTH; level++) {
      const parent = node.parent;
      if (!parent || !isElement(parent)) return false;
      const tile = parent;
      const above = tile.parent;
      if (above && isElement(above) && this.gridsUnder(above).some((run) => run.items.includes(tile))) return true;
      node = parent;
    }
    return false;
  }

  private holdsGrid(node: Element, text: number, depth: number): boolean {
    if ((this.counts.get(node)?.text ?? 0) < GRID_MIN_SHARE * text) return false;
    if (this.gridsUnder(node).some((run) => run.text >= GRID_MIN_SHARE * text)) return true;
    if (depth === 0) return false;
    return node.children.some((child) => isElement(child) && this.counts.has(child) && this.holdsGrid(child, text, depth - 1));
  }

  /** The grids among `parent`'s children. */
  private gridsUnder(parent: Element): Run[] {
    let grids = this.grids.get(parent);
    if (grids) return grids;
    const runs = new Map<string, Run>();
    for (const child of parent.children) {
      if (!isElement(child) || (this.counts.get(child)?.text ?? 0) === 0) continue;
      const kind = kindOf(child);
      let run = runs.get(kind);
      if (!run) runs.set(kind, (run = { parent, kind, items: [], text: 0 }));
      run.items.push(child);
      run.text += this.counts.get(child)!.text;
    }
    grids = [...runs.values()].filter((run) => this.isGrid(run));
    this.grids.set(parent, grids);
    return grids;
  }

  private isGrid(run: Run): boolean {
    if (run.items.length < GRID_MIN_ITEMS || FURNITURE_RUN.test(run.kind)) return false;
    if (run.text < GRID_MIN_SHARE * (this.counts.get(run.parent)?.text ?? 0)) return false;
    return run.items.every((item) => {
      if (FURNITURE_RUN.test(`${item.attribs.class ?? ''} ${item.attribs.id ?? ''}`)) return false;
      return isTileShaped(item);
    });
  }
}

/** A block's kind: its tag and first class name, digits left out. */
function kindOf(el: Element): string {
  const first = (el.attribs.class ?? '').trim().split(/\s+/)[0] ?? '';
  return `${el.name}.${first.replace(/\d+/g, '')}`;
}

/**
 * An item's tile: links leading to at most TILE_MAX_DESTINATIONS places (fragments and script links aside), and
 * more than a menu entry's one link of text: words besides its links (a price, a date, an excerpt), two links to
 * the item (its image and its title), or a link around an image or a heading (a card).
 */
function isTileShaped(root: Element): boolean {
  const places = new Set<string>();
  let links = 0;
  let card = false;
  walk(root, (el) => {
    if (el.name !== 'a') return true;
    const href = (el.attribs.href ?? '').trim();
    if (href === '' || href.startsWith('#') || /^javascript:/i.test(href)) return false;
    places.add(href.replace(/[?#].*$/, ''));
    links++;
    if (!card)
      card = findFirst(el, 'img') !== undefined || findFirst(el, 'picture') !== undefined || HEADINGS.some((h) => findFirst(el, h));
    return false;
  });
  if (places.size === 0 || places.size > TILE_MAX_DESTINATIONS) return false;
  return links >= 2 || card || textOutsideLinks(root);
}

const HEADINGS = ['h2', 'h3', 'h4', 'h5', 'h6'];
const HEADING_TAG = /^h[2-6]$/;
const HAS_WORD = /[\p{L}\p{N}]/u;

/** Whether any word under `root` sits outside its links. */
function textOutsideLinks(root: Element): boolean {
  let found = false;
  const visit = (node: Element) => {
    for (const child of node.children) {
      if (found) return;
      if (isElement(child)) {
        if (child.name !== 'a' && child.name !== 'script' && child.name !== 'style') visit(child);
      } else if (typeOf(child) === 'text' && HAS_WORD.test(textData(child))) found = true;
    }
  };
  visit(root);
  return found;
}
