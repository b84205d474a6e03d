import { HEADING_LEVELS, isElement, typeOf, type AnyNode, type Element } from '../dom';

/**
 * A heading whose section the cleaning left out titles nothing: "You may also like" over a list of links the
 * grab took for furniture, "Recommended posts" over cards, "Discover more" over a sign-up form. A heading (`<h2>`
 * to `<h6>`, or the heading role; a title's few words) followed by no shown text and no subsection before the next
 * heading of its level or above, or before the end of the content (`roots`), is left out. Headings in `keep` (the page's title) stay, and so do
 * headings next to one of their level (a list of titles: headlines, product names).
 */
export function orphanHeadings(roots: readonly AnyNode[], isOut: (el: Element) => boolean, keep: ReadonlySet<Element>): Set<Element> {
  const events: { heading?: Element; level: number }[] = [];
  // Headings and shown text in document order (a text node after a heading in the same parent comes after it).
  for (const root of roots) {
    const stack: AnyNode[] = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (typeOf(node) === 'text') {
        if (SOLID.test((node as { data: string }).data)) events.push(TEXT);
        continue;
      }
      if (!isElement(node) || isOut(node)) continue;
      const level = headingLevel(node);
      if (level > 0) {
        events.push({ heading: node, level });
        continue;
      }
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
  const out = new Set<Element>();
  for (let i = 0; i < events.length; i++) {
    const { heading, level } = events[i];
    if (!heading || level === 1 || keep.has(heading) || textLength(heading) > TITLE_MAX_TEXT) continue;
    // A run of headings of one level is a list of titles (headlines, product names), not sections.
    if (events[i - 1]?.level === level || events[i + 1]?.level === level) continue;
    let titled = false;
    for (let j = i + 1; j < events.length; j++) {
      // Text, or a heading of a lower rank (its subsection), is what the heading titles.
      if (events[j].level === 0 || events[j].level > level) {
        titled = true;
        break;
      }
      if (events[j].level <= level) break;
    }
    if (!titled) out.add(heading);
  }
  return out;
}

/** Text that is not white space only (as `trim` reads it). */
const SOLID = /\S/;
/** Every shown text is the same event (no heading, level 0): one object, not one per text. */
const TEXT: { heading?: Element; level: number } = Object.freeze({ level: 0 });
/** A title is a few words; a longer heading is a line of prose set in a heading tag (some builders do). */
const TITLE_MAX_TEXT = 60;

function textLength(el: Element): number {
  let n = 0;
  const stack: AnyNode[] = [el];
  while (stack.length > 0 && n <= TITLE_MAX_TEXT) {
    const node = stack.pop()!;
    if (typeOf(node) === 'text') n += (node as { data: string }).data.trim().length;
    else if (isElement(node)) stack.push(...node.children);
  }
  return n;
}

/** 1-6 for a heading element or an element with the heading role (its `aria-level`, else 2), 0 for anything else. */
function headingLevel(el: Element): number {
  const level = HEADING_LEVELS.get(el.name);
  if (level !== undefined) return level;
  if (el.attribs.role === 'heading') return Number(el.attribs['aria-level']) || 2;
  return 0;
}
