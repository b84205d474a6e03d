import { isElement, type Element } from '../dom';
import { isSiteChrome } from '../site-chrome';
import type { TextCount } from './text-census';

/** A block between the chosen sections holds at most this share of link text... */
const MAX_LINK_DENSITY = 0.5;
/** ...and at least this much text (characters): a section, not a spacer, a button or an ad's label. */
const MIN_TEXT = 100;

/** What is never one of a page's sections, whatever it holds. */
const NEVER_SECTIONS = new Set(['aside', 'dialog', 'form', 'template']);

/**
 * The blocks between the sections the grab chose: when the content is several sibling blocks of one parent (a
 * landing page's stacked sections: a hero, the services, how it works, case studies, questions), readability
 * takes each sibling on its own score and leaves out some in the middle of the run (a cards strip, a tab set,
 * a testimonial row). A sibling lying between two chosen ones that holds a section's worth of text, not mostly
 * links, and is not site chrome, is one of those sections. Not on a page that declares an article (the caller's
 * part): between an article's body and its closing lines stand its author's box and calls to action.
 */
export function sectionsBetween(
  run: readonly Element[],
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
): Element[] {
  if (run.length < 2) return [];
  const parent = run[0].parent;
  if (!parent || !isElement(parent) || run.some((root) => root.parent !== parent)) return [];
  const children = parent.children.filter(isElement);
  const chosen = run.map((root) => children.indexOf(root));
  const from = Math.min(...chosen);
  const to = Math.max(...chosen);
  return children.slice(from + 1, to).filter((child) => {
    if (run.includes(child) || isSkipped(child) || isSiteChrome(child) || NEVER_SECTIONS.has(child.name)) return false;
    const count = counts.get(child);
    return count !== undefined && count.text >= MIN_TEXT && count.link <= MAX_LINK_DENSITY * count.text;
  });
}
