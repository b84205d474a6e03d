import type { Text } from 'domhandler';
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

/** Texts shorter than this are measured again where they are read: a look-up would cost about as much. */
const REMEMBERED_FROM = 16;

/**
 * The lengths and commas (lengthAndCommas) of a page's text nodes, shared by the parts that read the same nodes
 * one after the other (the body's census, the grab's measure, its cleaning): a long text is measured once, a
 * short one (most of a page's nodes, little of its text) wherever it is read.
 */
export class TextMeasures {
  private readonly lengths = new Map<Text, number>();
  /** The commas of the remembered texts that have any. */
  private readonly commaCounts = new Map<Text, number>();
  private commasOfLast = 0;

  /** normalizedLength of the node's text; its countCommas are then read with lastCommas. */
  length(node: Text): number {
    const data = node.data;
    if (data.length < REMEMBERED_FROM) {
      const len = lengthAndCommas(data);
      this.commasOfLast = lastCommas();
      return len;
    }
    const known = this.lengths.get(node);
    if (known !== undefined) {
      this.commasOfLast = this.commaCounts.get(node) ?? 0;
      return known;
    }
    const len = lengthAndCommas(data);
    const commas = lastCommas();
    this.lengths.set(node, len);
    if (commas > 0) this.commaCounts.set(node, commas);
    this.commasOfLast = commas;
    return len;
  }

  /** The commas of the text `length` last measured. */
  lastCommas(): number {
    return this.commasOfLast;
  }
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
