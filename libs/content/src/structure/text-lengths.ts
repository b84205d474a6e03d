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
      if (c >= 128 ? !isWideSpace(c) : c !== 11) solid++;
    }
  }
  solidOfLast = solid;
  return len;
}

/** The solid length of the text textLengths last measured. */
export function lastSolidLength(): number {
  return solidOfLast;
}

/**
 * dom.ts solidLength: the characters of `text` that are not white space (as collapseWhitespace reads it), counted
 * up to `upTo` + 1 at most.
 */
export function solidLengthUpTo(text: string, upTo: number): number {
  let solid = 0;
  for (let i = 0; i < text.length && solid <= upTo; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 ? c !== 32 && (c < 9 || c > 13) : !isWideSpace(c)) solid++;
  }
  return solid;
}

/** Whether a character from U+0080 on is white space to `\s`: the no-break and other Unicode spaces. */
function isWideSpace(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
