import { isElement, textData, type AnyNode, type Element } from '../dom';

/**
 * Text measures of the main-content detection, counted the way readability counts them: lengths
 * with whitespace runs collapsed to one character, commas in every script that has its own.
 */

/** Length of `text` with each run of whitespace (space, tab, newlines, form feed, no-break space) counted once. */
export function normalizedLength(text: string): number {
  let len = 0;
  let space = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Most characters are above the space: one comparison tells them from the no-break space.
    if (c > 32 ? c !== 160 : c !== 32 && c !== 10 && c !== 9 && c !== 13 && c !== 12) {
      len++;
      space = false;
    } else {
      if (!space) len++;
      space = true;
    }
  }
  return len;
}

/** The commas of the text lengthAndCommas last measured (read them with lastCommas). */
let commasOfLast = 0;

/**
 * normalizedLength of `text`, and its countCommas for lastCommas: both in one pass over the text, for the grab's
 * measure and its cleaning, which need both of every text node they read.
 */
export function lengthAndCommas(text: string): number {
  let len = 0;
  let commas = 0;
  let space = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 32 ? c !== 160 : c !== 32 && c !== 10 && c !== 9 && c !== 13 && c !== 12) {
      len++;
      space = false;
      if (c === 0x2c || (c >= 0x60c && isComma(c))) commas++;
    } else {
      if (!space) len++;
      space = true;
    }
  }
  commasOfLast = commas;
  return len;
}

/** The commas of the text lengthAndCommas last measured. */
export function lastCommas(): number {
  return commasOfLast;
}

/** Commas in `text`: ',' and those of the scripts that have their own. */
export function countCommas(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2c || (c >= 0x60c && isComma(c))) n++;
  }
  return n;
}

/** The commas other than ',': ، ﹐ ︐ ︑ ⹀ ⸴ ⸲ ， (each one UTF-16 code unit). */
function isComma(c: number): boolean {
  return c === 0x60c || c === 0xfe50 || c === 0xfe10 || c === 0xfe11 || c === 0x2e40 || c === 0x2e34 || c === 0x2e32 || c === 0xff0c;
}

/** The subtree's text in document order (iterative: garbage nesting must not exhaust the stack). */
export function textOf(el: Element): string {
  let out = '';
  const stack: AnyNode[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    out += textData(node);
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

export function ancestors(el: Element): Set<Element> {
  const set = new Set<Element>();
  for (let p = el.parent; p && isElement(p); p = p.parent) set.add(p);
  return set;
}

export function insideTag(el: Element, ...names: string[]): boolean {
  for (let p = el.parent; p && isElement(p); p = p.parent) if (names.includes(p.name)) return true;
  return false;
}
