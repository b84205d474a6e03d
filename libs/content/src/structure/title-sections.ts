import { isElement, textData, typeOf, walk, type Element } from '../dom';
import type { TextCount } from './text-census';

/** A section between the title and the run holds at most this share of link text. */
const MAX_LINK_DENSITY = 0.5;
const SECTION_HEADINGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * The sections between the page's title and the run of sections the grab chose: when the content is several
 * sibling blocks of one parent and the main heading stands in an earlier child of that parent, the children
 * between the heading's block and the run that open with a heading of the run's sections' level and are not
 * link-dense are the
 * document's first sections (a reference page's Synopsis, whose code scores lower than the prose sections
 * after it), not furniture.
 */
export function sectionsBeforeRun(
  heading: Element | undefined,
  run: readonly Element[],
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
): Element[] {
  if (!heading || run.length < 2) return [];
  const parent = run[0].parent;
  if (!parent || !isElement(parent) || run.some((root) => root.parent !== parent)) return [];
  let branch: Element = heading;
  while (branch.parent && branch.parent !== parent) {
    if (!isElement(branch.parent)) return [];
    branch = branch.parent;
  }
  if (branch.parent !== parent) return [];
  // The run is a run of sections: each opens with a heading, all of one level.
  const level = openingHeading(run[0]);
  if (level === undefined || run.some((root) => openingHeading(root) !== level)) return [];
  const children = parent.children.filter(isElement);
  const from = children.indexOf(branch);
  const to = children.indexOf(run[0]);
  if (from < 0 || to <= from) return [];
  return children.slice(from + 1, to).filter((child) => {
    if (isSkipped(child)) return false;
    const count = counts.get(child);
    if (!count || count.text === 0 || count.link > MAX_LINK_DENSITY * count.text) return false;
    return openingHeading(child) === level;
  });
}

/** The tag of the section heading `el` opens with (the first element under it that holds text), if it opens with one. */
function openingHeading(el: Element): string | undefined {
  let found: string | null | undefined;
  walk(el, (child) => {
    if (found !== undefined) return false;
    if (SECTION_HEADINGS.has(child.name)) {
      found = child.name;
      return false;
    }
    if (child.children.some((c) => typeOf(c) === 'text' && /\S/.test(textData(c)))) found = null;
    return found === undefined;
  });
  return found ?? undefined;
}
