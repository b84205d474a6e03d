import { isSpaceCode } from '../dom';

/**
 * Lengths of a text node's text the main-content parts measure on every node of the page, in one pass each and
 * without a regular expression per character: the same numbers as readability/text-measure.ts normalizedLength and
 * dom.ts solidLength.
 */

/** The solid length of the text textLengths last measured (read it with lastSolidLength). */
let solidOfLast = 0;

/**
 * normalizedLength (readability/text-measure.ts) of `text`, and its solidLength (dom.ts) for lastSolidLength: both
 * in one pass over the text, for a census that needs both of every text node.
 */
export function textLengths(text: string): number {
  let len = 0;
  let solid = 0;
  let space = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 160) {
      if (!space) len++;
      space = true;
    } else {
      len++;
      space = false;
      if (!isSpaceCode(c)) solid++;
    }
  }
  solidOfLast = solid;
  return len;
}

/** The solid length of the text textLengths last measured. */
export function lastSolidLength(): number {
  return solidOfLast;
}
