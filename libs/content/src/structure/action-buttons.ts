import { isElement, outermost, typeOf, walk, type AnyNode, type Element } from '../dom';
import type { TextCount } from './text-census';

/**
 * A button in the content ("Book a demo", "Add to cart", "Buy poster", "Close form") is something to press, not
 * something the page says: a `<button>`, or a link or block drawn as one (a `btn`/`button` class name, the
 * button role), a few words long, is left out of the content (`roots`). A disclosure toggle stays: its label
 * (`aria-expanded`, `aria-controls`: an accordion's question) titles the text it opens; so does a block that
 * holds a heading, and a button inside a sentence.
 */
export function actionButtons(
  roots: readonly AnyNode[],
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
): Set<Element> {
  return outermost(roots, isSkipped, (el) => isButton(el, counts));
}

/** A button's label is a few words; more is a card or a block that happens to be clickable. */
const BUTTON_MAX_TEXT = 40;
/** A class token that draws an element as a button (`btn`, `btn-primary`, `button--secondary`, `wp-block-button__link`). */
const BUTTON_NAME = /(?:^|[-_])(?:btn|button)(?:$|[-_])/i;
const BUTTON_TAGS = new Set(['a', 'button', 'div', 'span']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

function isButton(el: Element, counts: ReadonlyMap<Element, TextCount>): boolean {
  if (!BUTTON_TAGS.has(el.name)) return false;
  const text = counts.get(el)?.text ?? 0;
  if (text === 0 || text > BUTTON_MAX_TEXT) return false;
  const drawn =
    el.name === 'button' || el.attribs.role === 'button' || (el.attribs.class ?? '').split(/\s+/).some((name) => BUTTON_NAME.test(name));
  if (!drawn || 'aria-expanded' in el.attribs || 'aria-controls' in el.attribs) return false;
  let heading = false;
  walk(el, (child) => {
    if (HEADINGS.has(child.name)) heading = true;
    return !heading;
  });
  return !heading && !inSentence(el);
}

/** A button set inside a line of text (its parent holds words of its own beside it). */
function inSentence(el: Element): boolean {
  const parent = el.parent;
  if (!parent || !isElement(parent)) return false;
  for (const sibling of parent.children) {
    if (sibling !== el && typeOf(sibling) === 'text' && (sibling as { data: string }).data.trim().length > 0) return true;
  }
  return false;
}
