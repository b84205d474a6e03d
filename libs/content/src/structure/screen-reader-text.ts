import { isElement, textContent, walk, type AnyNode, type Element } from '../dom';
import type { TextCount } from './text-census';

/**
 * Text drawn for screen readers only (`sr-only`, `visually-hidden`, `screen-reader-text`: "opens in a new window",
 * "Close", "Rating: 4 out of 5", a skip link) is no part of what a reader sees, and is left out of the content
 * (`roots`) once it is chosen (so it never moves the choice). It stays when it is all the text of its link (an
 * item's name in a grid of pictures lives there) or when it holds or sits in a heading (a section's title).
 */
export function screenReaderText(
  roots: readonly AnyNode[],
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
  keep: ReadonlySet<Element> = new Set(),
): Set<Element> {
  const out = new Set<Element>();
  for (const root of roots) {
    if (!isElement(root)) continue;
    walk(root, (el) => {
      if (isSkipped(el) || keep.has(el)) return false;
      if (CELLS.has(el.name)) return false;
      if (isScreenReaderOnly(el) && isLabel(el, counts) && !holdsHeading(el, keep) && !isLinkName(el, counts)) {
        out.add(el);
        return false;
      }
      return true;
    });
  }
  return out;
}

const SCREEN_READER_ONLY = /^(?:sr-only|visually-hidden|screen-reader-text)$/;
/** What a class attribute holding one of them holds. */
const SCREEN_READER_CLASS = /sr-only|visually-hidden|screen-reader-text/;
/** A table cell's screen-reader text reads out its mark (a comparison's tick as "Yes"): the table's value. */
const CELLS = new Set(['td', 'th']);
/** A label is a few words; longer screen-reader text describes a picture or a diagram the reader sees. */
const LABEL_MAX_TEXT = 40;

/** A few words and no figure (a figure read out is a value: a price, a rating). */
function isLabel(el: Element, counts: ReadonlyMap<Element, TextCount>): boolean {
  return (counts.get(el)?.text ?? 0) <= LABEL_MAX_TEXT && !/\d/.test(textContent(el));
}

function isScreenReaderOnly(el: Element): boolean {
  const cls = el.attribs.class;
  // Most class attributes name none of the classes: they are not split.
  return cls !== undefined && SCREEN_READER_CLASS.test(cls) && cls.split(/\s+/).some((n) => SCREEN_READER_ONLY.test(n));
}

function holdsHeading(el: Element, keep: ReadonlySet<Element>): boolean {
  let found = false;
  walk(el, (child) => {
    if (keep.has(child)) found = true;
    return !found;
  });
  return found;
}

/** The element holds all the text of the link it sits in (or is). */
function isLinkName(el: Element, counts: ReadonlyMap<Element, TextCount>): boolean {
  const own = counts.get(el)?.text ?? 0;
  for (let node: AnyNode | null = el; node && isElement(node); node = node.parent) {
    if (node.name === 'a') return (counts.get(node)?.text ?? 0) <= own;
  }
  return false;
}
