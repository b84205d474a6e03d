import { isElement, textData, walk, type Document, type Element } from '../dom';
import { isHidden, UNRENDERED_TAGS } from '../visibility';
import { textCensus } from './text-census';

/** A panel with more of its text in links than this is a menu or a list of links a toggle opens, not an answer. */
const PANEL_MAX_LINK_SHARE = 0.3;

/**
 * The collapsed panels of a page's accordions (WAI-ARIA's disclosure pattern): a hidden element (the `hidden`
 * attribute, `aria-hidden="true"`, an inline `display:none`) that a control with `aria-expanded` names in its
 * `aria-controls`, or the wrapper a framework hides around such an element and nothing else. A FAQ's answers, a service's plan details, a collection's buying guide: the page shows the
 * question and the reader opens the answer; it is the page's text, only folded. Panels mostly of links (a
 * mobile menu, a mega-menu's drop-down a toggle opens) stay hidden. Only the panels themselves are returned;
 * what they hide inside stays hidden. With `tabs`, also the hidden panels of tab lists (a `role="tab"` naming its
 * panel in `aria-controls`): a service page's plans or steps side by side (not on a product page, whose other
 * tabs hold its reviews, shipping and returns).
 */
export function collapsedPanels(document: Document, isSkipped: (el: Element) => boolean, options: { tabs?: boolean } = {}): Set<Element> {
  const controlled = new Set<string>();
  const tabs = new Set<string>();
  walk(document, (el) => {
    const controls = el.attribs['aria-controls'];
    const isTab = options.tabs === true && el.attribs.role === 'tab';
    if (controls !== undefined && (el.attribs['aria-expanded'] !== undefined || isTab))
      for (const id of controls.split(/\s+/)) if (id !== '') controlled.add(id);
    if (isTab && el.attribs.id) tabs.add(el.attribs.id);
    return true;
  });
  const panels = new Set<Element>();
  if (controlled.size === 0 && tabs.size === 0) return panels;
  const isPanel = (el: Element) =>
    (el.attribs.id !== undefined && controlled.has(el.attribs.id)) ||
    (el.attribs.role === 'tabpanel' && (el.attribs['aria-labelledby'] ?? '').split(/\s+/).some((id) => tabs.has(id)));
  walk(document, (el) => {
    if (UNRENDERED_TAGS.has(el.name)) return false;
    if (!isPanel(el)) return true;
    const panel = isHidden(el) ? el : collapseWrapper(el);
    if (!panel || !isSkipped(panel)) return true;
    const count = textCensus(panel, (child) => child !== panel && isSkipped(child)).get(panel);
    if (count && count.text > 0 && count.link <= count.text * PANEL_MAX_LINK_SHARE) panels.add(panel);
    return false;
  });
  return panels;
}

/** How far above a panel its collapse wrapper may sit. */
const WRAPPER_MAX_LEVELS = 2;

/**
 * The element a framework hides around a panel that is not hidden itself (Chakra's `chakra-collapse`, a
 * transition's wrapper): a hidden ancestor, at most WRAPPER_MAX_LEVELS up, that holds nothing but the panel.
 */
function collapseWrapper(panel: Element): Element | undefined {
  let node = panel;
  for (let level = 0; level < WRAPPER_MAX_LEVELS; level++) {
    const parent = node.parent;
    if (!parent || !isElement(parent)) return undefined;
    const blocks = parent.children.filter((c) => (isElement(c) && !UNRENDERED_TAGS.has(c.name)) || textData(c).trim() !== '');
    if (blocks.length !== 1) return undefined;
    if (isHidden(parent)) return parent;
    node = parent;
  }
  return undefined;
}
