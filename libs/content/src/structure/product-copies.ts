import { findFirst, type Document, type Element } from '../dom';
import { copyGroups } from './marked-copies';

/**
 * A product page describes one item, and draws its description, its features and its specifications once per
 * layout (a tab and an accordion, a desktop and a mobile section, a sticky summary): a block whose text repeats an
 * earlier block's word for word is a copy of it, whatever its class names say (marked-copies.ts leaves out the
 * marked copies on every page). Of the copies the chosen content shows (`isShown`), the first stays: the content
 * is chosen first, so that leaving a copy out never moves the choice. The blocks compared are marked-copies.ts's
 * (`copyGroups`: 120 characters or more, outermost first: a copied section goes whole). For pages that declare a product and not a collection (the
 * caller's test): a forum's quoted post or a reference page's repeated parameter is content each time.
 */
export function productCopies(document: Document, isSkipped: (el: Element) => boolean, isShown: (el: Element) => boolean): Set<Element> {
  const body = findFirst(document, 'body');
  const copies = new Set<Element>();
  if (!body) return copies;
  for (const group of copyGroups(body, isSkipped)) {
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
