import {
  collapseWhitespace,
  findFirst,
  isElement,
  textData,
  typeOf,
  visibleText,
  walk,
  type AnyNode,
  type Document,
  type Element,
} from '../dom';
import { textCensus, type TextCount } from './text-census';

/**
 * A price in an item tile: a currency sign or code next to an amount ("$19.99", "€ 55,95", "49,35€", "USD 120",
 * "1.299 kr").
 */
export const PRICE =
  /(?:[$€£¥₹₩₽]|\b(?:USD|EUR|GBP|AUD|CAD|NZD|CHF|SEK|NOK|DKK|PLN|JPY|INR|R\$|kr|zł|Rs\.?)\s?)\s?\d|\d(?:[.,]\d{1,2})?\s?(?:[$€£¥₹₩₽]|(?:USD|EUR|GBP|AUD|CAD|CHF|SEK|NOK|DKK|PLN|kr|zł)\b)/i;

/** A tile is a short block: an item's name, its price, a label or two. */
const TILE_MAX_TEXT = 250;
/** A grid holds several tiles... */
const GRID_MIN_TILES = 3;
/** ...and they are most of its blocks (not a product's options among its details). */
const GRID_MIN_SHARE = 0.5;
/** A grid holding more than this share of the body's text is the page (a listing), not a strip beside its item. */
const GRID_MAX_SHARE = 0.5;
/** The grid's block takes in what titles it (a heading, a "View all" link): at most this much text besides the grid. */
const TITLE_MAX_TEXT = 150;

/**
 * Other items for sale on a product page: a grid or strip of tiles, each a short block with a link to another
 * item and its price, GRID_MIN_TILES or more and most of the grid's blocks (recommendations, bundles, accessories,
 * a marketplace's sponsored items, whatever their title says or when they have none), with its title, when it
 * does not hold the page's `<h1>` (the item itself) nor most of the page, and the item has its own price after its
 * name, the `<h1>`, before any strip (without one, the `<h1>` titles the strips: a listing). The page's item is one
 * item; its price sits beside its name, not in a run of linked tiles. Only for pages that declare a product and
 * not a collection (the caller's test): on a listing the tiles are the content.
 */
export function otherItems(document: Document, isSkipped: (el: Element) => boolean): Set<Element> {
  const out = new Set<Element>();
  const body = findFirst(document, 'body');
  if (!body) return out;
  const counts = textCensus(body, isSkipped);
  const bodyText = counts.get(body)?.text ?? 0;
  const grids: Element[] = [];
  walk(body, (el) => {
    if (!counts.has(el)) return false;
    if (isGrid(el, counts)) {
      grids.push(el);
      return false;
    }
    return true;
  });
  for (const grid of grids) {
    if (findFirst(grid, 'h1') || (counts.get(grid)?.text ?? 0) > GRID_MAX_SHARE * bodyText) continue;
    out.add(titledBlock(grid, counts, bodyText));
  }
  // The page's item has its own price under its name: without one, the <h1> titles the strips (a listing).
  return out.size > 0 && itemPriced(body, out, isSkipped) ? out : new Set();
}

/** The item's own price follows its name (the page's first `<h1>`) within this many characters. */
const ITEM_PRICE_WINDOW = 600;

/** Whether a price follows the page's first `<h1>` within ITEM_PRICE_WINDOW characters, before any of `strips`. */
function itemPriced(body: Element, strips: ReadonlySet<Element>, isSkipped: (el: Element) => boolean): boolean {
  let text = '';
  let started = false;
  const stack: AnyNode[] = [body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isElement(node)) {
      if (strips.has(node) || (node !== body && isSkipped(node))) {
        if (started && strips.has(node)) break;
        continue;
      }
      if (!started && node.name === 'h1') started = true;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    } else if (started && typeOf(node) === 'text') {
      text += ` ${textData(node)}`;
      if (text.length > ITEM_PRICE_WINDOW) break;
    }
  }
  return PRICE.test(collapseWhitespace(text).slice(0, ITEM_PRICE_WINDOW));
}

function isGrid(el: Element, counts: ReadonlyMap<Element, TextCount>): boolean {
  const blocks = el.children.filter((c): c is Element => isElement(c) && (counts.get(c)?.text ?? 0) > 0);
  if (blocks.length < GRID_MIN_TILES) return false;
  let tiles = 0;
  for (const block of blocks) if (isTile(block, counts.get(block)!)) tiles++;
  return tiles >= GRID_MIN_TILES && tiles >= GRID_MIN_SHARE * blocks.length;
}

/** A short block with a link and a price. */
function isTile(el: Element, count: TextCount): boolean {
  return count.text <= TILE_MAX_TEXT && count.links >= 1 && PRICE.test(visibleText(el, TILE_MAX_TEXT * 2));
}

/** The grid with the blocks around it that add only a title, never the page's `<h1>` nor most of the page. */
function titledBlock(grid: Element, counts: ReadonlyMap<Element, TextCount>, bodyText: number): Element {
  const gridText = counts.get(grid)?.text ?? 0;
  let node = grid;
  for (;;) {
    const parent = node.parent;
    if (!parent || !isElement(parent) || parent.name === 'body' || parent.name === 'html' || parent.name === 'main') return node;
    const text = counts.get(parent)?.text ?? 0;
    if (text - gridText > TITLE_MAX_TEXT || text > GRID_MAX_SHARE * bodyText || findFirst(parent, 'h1')) return node;
    node = parent;
  }
}
