import { walk, type Element } from '../dom';

/**
 * A `<figure>` is an illustration readability leaves out (a picture, a chart, an embed, with its caption), but
 * HTML's figure also holds text: a table of data (site builders wrap every table in one), a quotation with its
 * attribution (a testimonial, a pull quote), a code listing. Such a figure is the page's text: what it holds is
 * read like the rest of the content (its caption still goes with the illustrations'). Not a figure that embeds
 * another site's post (a tweet drawn as a quotation by the script beside it, or named an embed).
 */
export function isTextFigure(el: Element): boolean {
  if (el.name !== 'figure') return false;
  let known = textFigures.get(el);
  if (known === undefined) {
    known = !NOT_TEXT.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`) && holds(el, TEXT_BLOCKS) && !holds(el, EMBEDS);
    textFigures.set(el, known);
  }
  return known;
}

/** The elements that make a figure text. */
const TEXT_BLOCKS = new Set(['table', 'blockquote', 'pre']);
/** What draws another site's content in a figure. */
const EMBEDS = new Set(['script', 'iframe', 'embed', 'object']);
const textFigures = new WeakMap<Element, boolean>();
/** An embedded post. */
const NOT_TEXT = /embed/i;

/** Whether `el` holds one of `tags` outside its caption. */
function holds(el: Element, tags: ReadonlySet<string>): boolean {
  let found = false;
  walk(el, (child) => {
    if (found || child.name === 'figcaption') return false;
    if (tags.has(child.name)) found = true;
    return !found;
  });
  return found;
}
