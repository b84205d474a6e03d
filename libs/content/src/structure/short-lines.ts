import { collapseWhitespace, findFirst, solidLength, textData, typeOf, walk, type AnyNode, type Document, type Element } from '../dom';

/** The longest line (characters, white space collapsed) a rule reading short lines looks at. */
export const SHORT_LINE_MAX = 70;

/** A short line of text and the element whose own text node it is. */
export interface ShortLine {
  el: Element;
  /** The text node's text, white space collapsed: 1 to SHORT_LINE_MAX characters. */
  text: string;
}

/**
 * The page's short lines: each text node under the body (a child of an element below it) that holds a word's worth
 * and at most SHORT_LINE_MAX characters once its white space is collapsed, in document order, not looking into what
 * `isSkipped` leaves out. The labels and titles the rules reading short lines look for (a carousel's title,
 * structure/recommendations.ts; a tile's badge, structure/tile-badges.ts) are found in one walk, each text
 * collapsed once.
 */
export function shortLines(document: Document, isSkipped: (el: Element) => boolean): ShortLine[] {
  const body: AnyNode = findFirst(document, 'body') ?? document;
  const lines: ShortLine[] = [];
  walk(body, (el) => {
    if (isSkipped(el)) return false;
    const children = el.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeOf(child) !== 'text') continue;
      const data = textData(child);
      // Most text nodes are the white space between tags, and a long one is no line: neither is collapsed.
      const solid = solidLength(data, SHORT_LINE_MAX);
      if (solid === 0 || solid > SHORT_LINE_MAX) continue;
      // A text without white space (a link's one word) is its own collapse.
      const text = solid === data.length ? data : collapseWhitespace(data);
      if (text.length <= SHORT_LINE_MAX) lines.push({ el, text });
    }
    return true;
  });
  return lines;
}
