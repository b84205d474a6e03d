import { findFirst, typeOf, visibleText, type AnyNode, type Document, type Element } from '../dom';
import { shortLines, type ShortLine } from './short-lines';

/**
 * A shop's merchandising label on an item tile ("Best seller", "Top rated", "New arrival", "Sold out", "Low
 * stock") or the tile's control ("Select size", "More options"): the whole text of the element that carries it.
 * Not a price's "Save 25%" (prices are the items' words), "Add to cart" (a product page's own buy box has one)
 * nor "Quick shop" (it opens a panel the page hides).
 */
const BADGE =
  /^(?:top[- ]rated|best[- ]?sellers?|new arrivals?|new in|just in|sold out|low stock|in stock|out of stock|back[- ]?order(?:ed)?|sponsored|select (?:your )?size|choose (?:your )?size|choose options|more options)[\s.!:]*$/i;

/** A tile's label repeats over the grid: a label seen fewer times than this is the page's own word. */
const BADGE_MIN_REPEATS = 2;

const HEADING = /^h[1-6]$/;

/**
 * The labels and controls of a page's item tiles (BADGE), when at least BADGE_MIN_REPEATS of them sit on the
 * page: a grid's decoration, not its items. A heading is never one ("Best sellers" titling a section), nor anything
 * in one. The labels are looked for among the page's short lines (structure/short-lines.ts), which the caller may
 * have read already.
 */
export function tileBadges(
  document: Document,
  isSkipped: (el: Element) => boolean,
  lines: readonly ShortLine[] = shortLines(document, isSkipped),
): Set<Element> {
  const body = findFirst(document, 'body') ?? document;
  const badges = new Set<Element>();
  for (const { el, text } of lines) {
    if (text.length < 3 || text.length > 24 || !BADGE.test(text)) continue;
    // The label's own element: nothing in it but its text (not a tile's link around an image and a label).
    if (el.children.every((c) => typeOf(c) === 'text') && visibleText(el, 40) === text && !inHeading(el, body)) badges.add(el);
  }
  return badges.size >= BADGE_MIN_REPEATS ? badges : new Set();
}

/** Whether `el` is a heading or inside one, below `root`. */
function inHeading(el: Element, root: AnyNode): boolean {
  for (let node: AnyNode | null = el; node && node !== root; node = node.parent) if (HEADING.test((node as Element).name)) return true;
  return false;
}
