import { isElement, textData, type Element, typeOf } from '../dom';
import { lastCommas, lengthAndCommas, normalizedLength } from '../readability/text-measure';

/** One element's text, counted once for the whole page. */
export interface TextCount {
  /** Whitespace-collapsed text length of the subtree (skipped elements left out). */
  text: number;
  /** Of which inside links. */
  link: number;
  /** Links in the subtree. */
  links: number;
  /** Text nodes counted in the subtree (always set by textCensus; optional only for counts made by hand). */
  texts?: number;
}

/**
 * What a census lists as it counts, for the parts that would read the same nodes again. The text nodes it counted,
 * in document order: each one's length and commas (readability/text-measure.ts lengthAndCommas); the grab's
 * measure and its cleaning walk the same texts, fewer of them (they leave out more): they read each one's numbers
 * here instead of measuring it again, and step over an element they leave out by its count's `texts`.
 */
export interface CensusLists {
  lengths: number[];
  commas: number[];
  /** The counted elements that declare the page's main region (`<main>`, `role="main"`), in the census's order. */
  mains: Element[];
}

/**
 * Text and link lengths of every element under `root` in one iterative post-order pass (garbage markup
 * nests thousands deep). Skipped elements count nothing and get no entry. With `lists`, what CensusLists lists is
 * also listed there.
 */
export function textCensus(root: Element, isSkipped: (el: Element) => boolean, lists?: CensusLists): Map<Element, TextCount> {
  const counts = new Map<Element, TextCount>();
  // The open elements, one frame per depth, reused (a frame is done with once its element is counted).
  const stack: { el: Element; i: number; count: TextCount & { texts: number } }[] = [
    { el: root, i: 0, count: { text: 0, link: 0, links: 0, texts: 0 } },
  ];
  let depth = 0;
  while (depth >= 0) {
    const frame = stack[depth];
    const children = frame.el.children;
    if (frame.i < children.length) {
      const child = children[frame.i++];
      if (typeOf(child) === 'text') {
        const count = frame.count;
        count.texts++;
        if (lists) {
          const length = lengthAndCommas(textData(child));
          count.text += length;
          lists.lengths.push(length);
          lists.commas.push(lastCommas());
        } else count.text += normalizedLength(textData(child));
      } else if (isElement(child) && !isSkipped(child)) {
        const count = { text: 0, link: 0, links: 0, texts: 0 };
        const next = stack[++depth];
        if (next) {
          next.el = child;
          next.i = 0;
          next.count = count;
        } else stack.push({ el: child, i: 0, count });
      }
      continue;
    }
    depth--;
    const { el, count } = frame;
    if (el.name === 'a') {
      count.link = count.text;
      count.links++;
    }
    counts.set(el, count);
    // The element is at hand: read now, not from the census later (a read of every element again).
    if (lists && (el.name === 'main' || el.attribs.role === 'main')) lists.mains.push(el);
    if (depth >= 0) {
      const parent = stack[depth].count;
      parent.text += count.text;
      parent.link += count.link;
      parent.links += count.links;
      parent.texts += count.texts;
    }
  }
  return counts;
}
