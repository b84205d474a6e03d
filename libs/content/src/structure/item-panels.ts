import { collapseWhitespace, isElement, textData, typeOf, walk, type AnyNode, type Document, type Element } from '../dom';
import { textCensus } from './text-census';

/** A panel with more of its text in links than this is a menu a toggle opens, not a part of the item's details. */
const PANEL_MAX_LINK_SHARE = 0.3;
/** A panel shorter than this (characters) is a control's pop-up (a tile's menu, a tooltip), not the item's details. */
const PANEL_MIN_TEXT = 100;
/** A panel of the item's details holds a sentence of prose this long at least (a filter's panel holds only values). */
const PROSE_MIN_TEXT = 40;

/**
 * A product page folds the item's details into an accordion: its description, specifications, what is in the box,
 * each a panel a button opens (WAI-ARIA's disclosure pattern: a control with `aria-expanded` names the panel in
 * `aria-controls`). Readability's cleaning judges the accordion as a whole, a block of buttons and short panels,
 * and may take it out; its panels are the item's details all the same. Returns the panels inside `roots` (the
 * chosen content), rendered (`isSkipped` leaves none of them or their ancestors out) and mostly prose, that the
 * caller keeps: PANEL_MIN_TEXT characters or more (not a tile's pop-up menu) with a sentence of prose (not a
 * filter's values). For pages that declare a product (the caller's test).
 */
export function itemPanels(document: Document, roots: readonly Element[], isSkipped: (el: Element) => boolean): Element[] {
  const controlled = new Set<string>();
  walk(document, (el) => {
    const controls = el.attribs['aria-controls'];
    if (controls !== undefined && el.attribs['aria-expanded'] !== undefined)
      for (const id of controls.split(/\s+/)) if (id !== '') controlled.add(id);
    return true;
  });
  if (controlled.size === 0) return [];
  const panels: Element[] = [];
  for (const root of roots) {
    walk(root, (el) => {
      if (isSkipped(el)) return false;
      const id = el.attribs.id;
      if (id === undefined || !controlled.has(id)) return true;
      const count = textCensus(el, isSkipped).get(el);
      if (count && count.text >= PANEL_MIN_TEXT && count.link <= count.text * PANEL_MAX_LINK_SHARE && holdsProse(el, isSkipped))
        panels.push(el);
      return false;
    });
  }
  return panels;
}

/** Whether a text run of PROSE_MIN_TEXT characters or more is under `root` (outside skipped elements). */
function holdsProse(root: Element, isSkipped: (el: Element) => boolean): boolean {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeOf(node) === 'text') {
      if (collapseWhitespace(textData(node)).length >= PROSE_MIN_TEXT) return true;
      continue;
    }
    if (!isElement(node) || (node !== root && isSkipped(node))) continue;
    for (const child of node.children) stack.push(child);
  }
  return false;
}
