import { findFirst, visibleText, walk, type Document, type Element } from '../dom';
import { textCensus, type TextCount } from './text-census';

/** A block shorter than this (characters) may repeat for a reason (a label, a price, an option). */
const COPY_MIN_TEXT = 120;

/** Elements whose copies are looked for: blocks, not inline runs. */
const BLOCKS = new Set(['div', 'section', 'article', 'p', 'ul', 'ol', 'dl', 'li', 'table', 'figure', 'blockquote']);

/**
 * A product page describes one item, and draws its description, its features and its specifications once per
 * layout (a tab and an accordion, a desktop and a mobile section, a sticky summary): a block whose text repeats an
 * earlier block's word for word is a copy of it, whatever its class names say (marked-copies.ts leaves out the
 * marked copies on every page). Of the copies the chosen content shows (`isShown`), the first stays: the content
 * is chosen first, so that leaving a copy out never moves the choice. Only blocks of COPY_MIN_TEXT characters or
 * more, outermost first: a copied section goes whole. For pages that declare a product and not a collection (the
 * caller's test): a forum's quoted post or a reference page's repeated parameter is content each time.
 */
export function productCopies(document: Document, isSkipped: (el: Element) => boolean, isShown: (el: Element) => boolean): Set<Element> {
  const body = findFirst(document, 'body');
  const copies = new Set<Element>();
  if (!body) return copies;
  const counts = textCensus(body, isSkipped);
  const groups = new Map<string, Element[]>();
  walk(body, (el) => {
    if (isSkipped(el)) return false;
    const count = counts.get(el);
    if (!count || count.text < COPY_MIN_TEXT) return false;
    if (!BLOCKS.has(el.name) || onlyChildWrapper(el, counts)) return true;
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
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    // The first copy the content shows stays; copies it does not show are not its text twice.
    let first = true;
    for (const el of group) {
      if (!isShown(el)) continue;
      if (!first) copies.add(el);
      first = false;
    }
  }
  return copies;
}

/** A wrapper whose text is all in one child element: the child stands for it (its text is not read twice). */
function onlyChildWrapper(el: Element, counts: ReadonlyMap<Element, TextCount>): boolean {
  const text = counts.get(el)?.text ?? 0;
  for (const child of el.children) {
    const count = counts.get(child as Element);
    if (count && count.text === text) return true;
  }
  return false;
}
