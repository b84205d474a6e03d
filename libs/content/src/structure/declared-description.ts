import { decodeHTML } from 'entities';
import { isElement, typeOf, type AnyNode, type Element } from '../dom';

/**
 * A product page says what its item is in its own structured data: schema.org's `Product.description` (JSON-LD).
 * The block of the page that shows that text is the item's description, the heart of the page, whatever its class
 * names, tag or role say: a description folded into a "read more" toggle, a sheet (`role="dialog"`) its accordion
 * opens, a tab the grab left out. The main content keeps it (the caller's part; for pages that declare a product).
 *
 * The block is found by the description's words, not its markup: the smallest element whose visible text runs from
 * the description's first words to its last ones, and holds little else (it is the description, not the page
 * around it). Descriptions too short to tell apart from a label are not looked for.
 */
export function declaredDescriptionBlock(body: Element, description: string, isSkipped: (el: Element) => boolean): Element | undefined {
  // The description is text, or HTML (its tags and entities are not its words).
  const words = wordsOf(decodeHTML(description.replace(/<[^>]*>/g, ' ')));
  if (words.length < MIN_WORDS) return undefined;
  const text = new PageWords(body, isSkipped);
  const head = ` ${words.slice(0, PROBE_WORDS).join(' ')} `;
  // The last words but one: a description cut short for the structured data ends in a broken word.
  const tail = ` ${words.slice(-PROBE_WORDS - 1, -1).join(' ')} `;
  const start = text.words.indexOf(head);
  if (start === -1) return undefined;
  const tailAt = text.words.indexOf(tail, start);
  if (tailAt === -1) return undefined;
  const end = tailAt + tail.length;
  // The smallest element whose text spans the description (the spans nest: the last one found, the innermost).
  let block: Element | undefined;
  for (const [el, [from, to]] of text.spans) if (from <= start && to >= end - 1 && (!block || to - from < span(text, block))) block = el;
  if (!block) return undefined;
  return span(text, block) <= (end - start) * MAX_SPAN_RATIO + MAX_SPAN_EXTRA ? block : undefined;
}

/** A description shorter than this (words) reads like a label or a tag line: found anywhere. */
const MIN_WORDS = 20;
/** Words of the description's start and end looked for on the page. */
const PROBE_WORDS = 6;
/** The block holds the description and not much else: at most this many times its text... */
const MAX_SPAN_RATIO = 1.5;
/** ...plus this many characters (a heading, a label, a "read more"). */
const MAX_SPAN_EXTRA = 300;

const NOT_TEXT = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg']);

/** A subtree's visible words, lower-cased and each preceded by a space, with the span of every element. */
class PageWords {
  words = '';
  readonly spans = new Map<Element, [number, number]>();

  constructor(root: Element, isSkipped: (el: Element) => boolean) {
    // Iterative (garbage markup nests deep): an element is entered, then its children, then it is closed.
    const stack: Array<AnyNode | { closes: Element; from: number }> = [root];
    while (stack.length > 0) {
      const item = stack.pop()!;
      if ('closes' in item) {
        this.spans.set(item.closes, [item.from, this.words.length]);
        continue;
      }
      if (typeOf(item) === 'text') {
        for (const word of wordsOf((item as { data: string }).data)) this.words += ` ${word}`;
        continue;
      }
      if (!isElement(item) || (item !== root && (NOT_TEXT.has(item.name) || isSkipped(item)))) continue;
      stack.push({ closes: item, from: this.words.length });
      for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i]);
    }
    this.words += ' ';
  }
}

function span(text: PageWords, el: Element): number {
  const [from, to] = text.spans.get(el)!;
  return to - from;
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

const PRODUCT_TYPES = /^(?:product|productgroup|individualproduct|productmodel)$/;

/**
 * The description a page's JSON-LD gives its product (top level, `@graph`, `mainEntity`, as declared-kind.ts reads
 * the types), or undefined.
 */
export function declaredProductDescription(jsonLd: readonly unknown[]): string | undefined {
  const visit = (node: unknown, depth: number): string | undefined => {
    if (depth > 3 || node === null || typeof node !== 'object') return undefined;
    if (Array.isArray(node)) {
      for (const item of node.slice(0, 50)) {
        const found = visit(item, depth);
        if (found) return found;
      }
      return undefined;
    }
    const record = node as Record<string, unknown>;
    const types = ([] as unknown[]).concat(record['@type'] ?? []).map((t) =>
      String(t)
        .toLowerCase()
        .replace(/^https?:\/\/schema\.org\//, ''),
    );
    if (types.some((t) => PRODUCT_TYPES.test(t)) && typeof record.description === 'string') return record.description;
    return visit(record['@graph'], depth + 1) ?? visit(record.mainEntity, depth + 1);
  };
  return visit(jsonLd, 0);
}
