import { isExcluded } from '../readability/signals';
import { walk } from '../dom';
import type { Element } from '../dom';
import { isNamedSection } from './named-sections';
import type { TextCount } from './text-census';

const BY_TAG_AND_ROLE = { stripUnlikely: false, weightClasses: true, cleanConditionally: true };

/**
 * The sections readability's cleaning took out of its grab that read as sections (structure/named-sections.ts: a
 * heading and prose, little of it in links, not named for comments, authors, reading suggestions or sign-ups): a
 * landing page's feature cards and panels, whose icons outnumber their paragraphs and whose component names
 * (`panel`, `promo`) the cleaning reads as furniture. Only the outermost such elements, under the grab's roots; not a
 * block holding a form to fill in (a lead form's "Get a free quote today": it asks, it does not tell).
 */
export function cleanedSections(
  roots: readonly Element[],
  removed: ReadonlySet<Element>,
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
): Element[] {
  const found: Element[] = [];
  for (const el of removed) {
    if (
      isSkipped(el) ||
      !isUnder(el, roots) ||
      isExcluded(el, BY_TAG_AND_ROLE, isSkipped) ||
      !isNamedSection(el, counts) ||
      asksForInput(el)
    )
      continue;
    found.push(el);
  }
  return found.filter((el) => !found.some((other) => other !== el && isUnder(el, [other])));
}

function isUnder(el: Element, roots: readonly Element[]): boolean {
  for (let node = el.parent; node; node = node.parent) if (roots.includes(node as Element)) return true;
  return false;
}

/** A form to fill in (a lead form's "Get a free quote"): the block asks the reader, it does not tell. */
function asksForInput(el: Element): boolean {
  let found = false;
  walk(el, (child) => {
    if (
      child.name === 'form' ||
      child.name === 'textarea' ||
      (child.name === 'input' && TEXT_INPUTS.has((child.attribs.type ?? 'text').toLowerCase()))
    )
      found = true;
    return !found;
  });
  return found;
}
const TEXT_INPUTS = new Set(['text', 'email', 'tel', 'number']);
