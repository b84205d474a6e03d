import { findFirst, isElement, walk, type Document, type Element } from '../dom';
import { isHidden, UNRENDERED_TAGS } from '../visibility';
import { textCensus } from './text-census';

const HIDING_STYLE = /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/**
 * Wrappers a page hides in its markup and shows with its scripts: an anti-flicker `visibility:hidden` around the
 * whole app until it has hydrated, a `display:none` block a lock or a deferred loader reveals. A wrapper hidden by
 * an inline style that holds more text than the whole page shows is the page's content waiting for a script,
 * not a hidden menu or a dialog: a reader sees it. So is a wrapper marked `aria-hidden` that holds an `<h1>` and more text than the
 * page shows: the page behind an open dialog (a cookie banner), hidden from screen readers only. A hidden block of microdata (`itemscope`) is for machines, however
 * long. Only the outermost such wrappers are returned; what they hide inside stays hidden.
 */
export function revealedWrappers(document: Document): Set<Element> {
  const revealed = new Set<Element>();
  const candidates: Element[] = [];
  const hidden: Element[] = [];
  walk(document, (el) => {
    if (UNRENDERED_TAGS.has(el.name)) return false;
    if (!isHidden(el)) return true;
    hidden.push(el);
    const styled = el.attribs.style !== undefined && HIDING_STYLE.test(el.attribs.style);
    // `aria-hidden` on the page behind an open dialog (a cookie banner), which holds the page's title: screen
    // readers skip it, a reader sees it (a closed menu is marked so too, but titles nothing).
    const inert = el.attribs['aria-hidden'] === 'true' && el.attribs.hidden === undefined && findFirst(el, 'h1') !== undefined;
    if ((styled || inert) && el.attribs.itemscope === undefined) candidates.push(el);
    return false;
  });
  if (candidates.length === 0) return revealed;
  const root = document.children.find((c): c is Element => isElement(c) && c.name === 'html') ?? document;
  const counts = textCensus(root as Element, (el) => UNRENDERED_TAGS.has(el.name));
  let shown = counts.get(root as Element)?.text ?? 0;
  for (const el of hidden) shown -= counts.get(el)?.text ?? 0;
  for (const el of candidates) {
    const text = counts.get(el)?.text ?? 0;
    if (text > shown) revealed.add(el);
  }
  return revealed;
}
