import { findFirst, isElement, textData, typeOf, walk, type AnyNode, type Document, type Element } from '../dom';
import { normalizedLength } from '../readability/text-measure';
import { isHidden, UNRENDERED_TAGS } from '../visibility';

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
  // The outermost hidden elements, in document order, and which of them may be a wrapper a script shows.
  const hidden: Element[] = [];
  const candidates: boolean[] = [];
  walk(document, (el) => {
    if (UNRENDERED_TAGS.has(el.name)) return false;
    if (!isHidden(el)) return true;
    const styled = el.attribs.style !== undefined && HIDING_STYLE.test(el.attribs.style);
    // `aria-hidden` on the page behind an open dialog (a cookie banner), which holds the page's title: screen
    // readers skip it, a reader sees it (a closed menu is marked so too, but titles nothing).
    const inert = el.attribs['aria-hidden'] === 'true' && el.attribs.hidden === undefined && findFirst(el, 'h1') !== undefined;
    hidden.push(el);
    candidates.push((styled || inert) && el.attribs.itemscope === undefined);
    return false;
  });
  if (!candidates.includes(true)) return revealed;
  const root = document.children.find((c): c is Element => isElement(c) && c.name === 'html') ?? document;
  // The text the page shows: the whole page's (in its <html>, when it has one) less the hidden elements' there.
  const texts = hidden.map((el) => (holds(root, el) ? renderedLength(el) : 0));
  let hiddenText = 0;
  for (const text of texts) hiddenText += text;
  // A candidate is revealed when it holds more than the page shows: when the page's text is less than its own and
  // all hidden text together. The page's text is counted only as far as the largest such sum: a page holding that
  // much reveals none (on most pages, a hidden menu's few words against an article).
  let enough = 0;
  for (let i = 0; i < hidden.length; i++) if (candidates[i]) enough = Math.max(enough, texts[i] + hiddenText);
  const shown = renderedLength(root, enough) - hiddenText;
  for (let i = 0; i < hidden.length; i++) if (candidates[i] && texts[i] > shown) revealed.add(hidden[i]);
  return revealed;
}

/**
 * The whitespace-collapsed length of the text under `root` (readability/text-measure.ts normalizedLength of each
 * text node), what a browser never renders below it (UNRENDERED_TAGS) left out: structure/text-census.ts's text
 * count of `root` with that skip rule, without an entry per element. Counting stops once it reaches `upTo` (the
 * length returned is then at least `upTo`, not the whole).
 */
export function renderedLength(root: AnyNode, upTo = Infinity): number {
  let length = 0;
  const stack: AnyNode[] = [root];
  while (stack.length > 0 && length < upTo) {
    const children = (stack.pop() as { children?: AnyNode[] }).children;
    if (children === undefined) continue;
    for (const child of children) {
      if (typeOf(child) === 'text') length += normalizedLength(textData(child));
      else if (isElement(child) && !UNRENDERED_TAGS.has(child.name)) stack.push(child);
    }
  }
  return length;
}

/** Whether `el` is `root` or below it. */
function holds(root: AnyNode, el: Element): boolean {
  for (let node: AnyNode | null = el; node; node = node.parent) if (node === root) return true;
  return false;
}
