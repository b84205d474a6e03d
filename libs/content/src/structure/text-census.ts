import { isElement, textData, type Element, typeOf } from '../dom';
import { normalizedLength } from '../readability/text-measure';

/** One element's text, counted once for the whole page. */
export interface TextCount {
  /** Whitespace-collapsed text length of the subtree (skipped elements left out). */
  text: number;
  /** Of which inside links. */
  link: number;
  /** Links in the subtree. */
  links: number;
}

/**
 * Text and link lengths of every element under `root` in one iterative post-order pass (garbage markup
 * nests thousands deep). Skipped elements count nothing and get no entry.
 */
export function textCensus(root: Element, isSkipped: (el: Element) => boolean): Map<Element, TextCount> {
  const counts = new Map<Element, TextCount>();
  const stack: { el: Element; i: number; count: TextCount }[] = [{ el: root, i: 0, count: { text: 0, link: 0, links: 0 } }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const children = frame.el.children;
    if (frame.i < children.length) {
      const child = children[frame.i++];
      if (typeOf(child) === 'text') frame.count.text += normalizedLength(textData(child));
      else if (isElement(child) && !isSkipped(child)) stack.push({ el: child, i: 0, count: { text: 0, link: 0, links: 0 } });
      continue;
    }
    stack.pop();
    const { el, count } = frame;
    if (el.name === 'a') {
      count.link = count.text;
      count.links++;
    }
    counts.set(el, count);
    const parent = stack[stack.length - 1];
    if (parent) {
      parent.count.text += count.text;
      parent.count.link += count.link;
      parent.count.links += count.links;
    }
  }
  return counts;
}
