import { outermost, visibleText, type Element } from '../dom';
import { AD_OR_LOADING } from '../readability/signals';
import type { TextCount } from './text-census';

/** A label is a word or two. */
const LABEL_MAX_TEXT = 40;

/**
 * Placeholders a script fills in later: a block whose whole text is a loading or advertising label ("Loading...",
 * "Advertisement"), as readability's cleaning reads them (readability/signals.ts AD_OR_LOADING). The cleaning
 * drops them inside the grab; a region keeps them, and a page that draws its recommendations, reviews and prices
 * late shows dozens. Returns the outermost such blocks under `roots` that `isShown` (the caller's test) renders;
 * `counts` is the page's text census (structure/text-census.ts).
 */
export function placeholderLabels(
  roots: readonly Element[],
  counts: ReadonlyMap<Element, TextCount>,
  isShown: (el: Element) => boolean,
): Set<Element> {
  return outermost(
    roots,
    (el) => !counts.get(el)?.text || !isShown(el),
    (el) => counts.get(el)!.text <= LABEL_MAX_TEXT && AD_OR_LOADING.test(visibleText(el)),
  );
}
