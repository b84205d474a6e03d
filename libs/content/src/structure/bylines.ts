import { outermost, textContent, type AnyNode, type Element } from '../dom';
import type { TextCount } from './text-census';

/**
 * A post's byline and reading time ("Written by Ann Lee", "Posted by Ann at May 1", "11 min read") say who wrote it
 * and how long it takes, not what it says: a block (a paragraph, a span, a list item...) of 60 characters or less whose
 * whole text is such a line is left out of the content (`roots`). Not "Published by": a list of books or games names
 * each item's publisher.
 */
export function bylines(
  roots: readonly AnyNode[],
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
): Set<Element> {
  return outermost(
    roots,
    (el) => isSkipped(el) || (counts.get(el)?.text ?? 0) === 0,
    (el) => BLOCKS.has(el.name) && counts.get(el)!.text <= BYLINE_MAX_TEXT && isByline(textContent(el)),
  );
}

/** Whether a text, whitespace collapsed, is a byline: most short texts say neither "by" nor "min" and are not collapsed. */
function isByline(text: string): boolean {
  return BYLINE_WORD.test(text) && BYLINE.test(text.replace(/\s+/g, ' ').trim());
}

const BYLINE_MAX_TEXT = 60;
const BLOCKS = new Set(['p', 'div', 'span', 'li', 'time', 'small']);
/** What every line BYLINE reads holds. */
const BYLINE_WORD = /by|min/i;
const BYLINE = /^(?:(?:written|posted)\s+by\s+\S.*|\d+\s*min(?:ute)?s?\s+read)$/i;
