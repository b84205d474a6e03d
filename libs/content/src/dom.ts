import type { AnyNode, Document, Element, Text } from 'domhandler';
import { DomBuilder } from './dom-builder';
import { NamingParser } from './html-parser';
import { SkippingTokenizer } from './html-tokenizer';
import { isInvisible } from './visibility';

/**
 * The DOM helpers every reader of a page shares (conversion here, the analysis and learned-extraction
 * libs): one parse, one idea of an element, of visible text and of a walk. Every walk is iterative:
 * garbage markup can nest thousands deep.
 */
export type { AnyNode, Document, Element };

/**
 * Parses forgivingly (htmlparser2 never throws on bad markup); a leading BOM is dropped. A `<![CDATA[` in HTML
 * content is a bogus comment that a browser ends at the next `>`; htmlparser2 reads it as a section running to
 * `]]>`, which on some pages is never written and swallows the rest of the page: it is closed where it starts.
 * The tokenizer is htmlparser2's, skipping through text and attribute values (html-tokenizer.ts), and the parser
 * too, keeping the tag and attribute names it has read (html-parser.ts), and the tree is domhandler's, built with
 * each element's children in an array of their own count, made without an allocation site V8 could move to the
 * old generation (dom-builder.ts): the same DOM.
 */
export function parseHtml(html: string): Document {
  let source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  if (includesByTail(source, '<![', 'CDATA[') && hasCdataOutsideRawText(source))
    source = source.replace(CDATA_OUTSIDE_RAW_TEXT, (m) => (m.charCodeAt(1) === 33 ? '<!---->' : m));
  const builder = new DomBuilder();
  new NamingParser(builder, PARSE_OPTIONS).end(source);
  return builder.finish();
}

const PARSE_OPTIONS = { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true, Tokenizer: SkippingTokenizer };

/** A CDATA opener, or a whole script/style element (raw text, where it is left alone). */
const CDATA_OUTSIDE_RAW_TEXT = /<(script|style)\b[\s\S]*?<\/\1\s*>|<!\[CDATA\[/gi;

/**
 * Whether the replace above would change `source`: a CDATA opener it finds outside a script or style (on most
 * pages that hold one, it is in a script), found by the same expression, so the page is not copied for nothing.
 */
function hasCdataOutsideRawText(source: string): boolean {
  const found = CDATA_OUTSIDE_RAW_TEXT;
  found.lastIndex = 0;
  for (let match = found.exec(source); match !== null; match = found.exec(source)) {
    if (match[1] === undefined) {
      found.lastIndex = 0;
      return true;
    }
  }
  return false;
}

/**
 * Whether `text` holds `head + tail`: the answer of `text.includes(head + tail)`, found by looking for `tail`, a
 * string rarer in a page's source than `head`'s first character (a `<`, an `i`, a `p`), at which a plain search
 * stops all over the page. A cheap test of the whole source for a marker before a walk looks for what it marks.
 */
export function includesByTail(text: string, head: string, tail: string): boolean {
  for (let at = text.indexOf(tail, head.length); at !== -1; at = text.indexOf(tail, at + 1)) {
    if (text.startsWith(head, at - head.length)) return true;
  }
  return false;
}

/** The heading elements' levels, h1 to h6 (a Map: no name is looked up on a prototype, no match per element). */
export const HEADING_LEVELS: ReadonlyMap<string, number> = new Map([
  ['h1', 1],
  ['h2', 2],
  ['h3', 3],
  ['h4', 4],
  ['h5', 5],
  ['h6', 6],
]);

/** The node type as a plain string ('tag', 'text', 'script', 'style', 'comment', ...). */
export function typeOf(node: AnyNode): string {
  const type: string = node.type;
  return type;
}

/** domhandler gives <script>/<style> their own node types; all three are elements. */
export function isElement(node: AnyNode): node is Element {
  return isElementType(node.type);
}

/** The character data of a text node ('' for anything else). */
export function textData(node: AnyNode): string {
  return typeOf(node) === 'text' ? (node as Text).data : '';
}

export function childElements(node: AnyNode): Element[] {
  const children = (node as { children?: AnyNode[] }).children;
  return children ? children.filter(isElement) : [];
}

/** Node types that are elements: domhandler gives <script>/<style> their own types (see isElement). */
function isElementType(type: string): boolean {
  return type === 'tag' || type === 'script' || type === 'style';
}

/**
 * Depth-first pre-order visit of the elements under `root` (not `root` itself); `visit` returning false skips the subtree.
 * Only elements go on the stack (text and comments are never visited), and an element's children are read when it
 * is reached, after its visit, as they stand then.
 */
export function walk(root: AnyNode, visit: (el: Element) => boolean | void): void {
  const stack: Element[] = [];
  pushElements(stack, (root as { children?: AnyNode[] }).children);
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (visit(el) !== false) pushElements(stack, el.children);
  }
}

/** The element children of a node, last first, onto a walk's stack (so that they pop in document order). */
function pushElements(stack: Element[], children: AnyNode[] | undefined): void {
  if (children === undefined) return;
  for (let i = children.length - 1; i >= 0; i--) {
    const child = children[i];
    if (isElementType(child.type)) stack.push(child as Element);
  }
}

/**
 * The outermost elements under `roots` (not the roots themselves) that `matches`, in document order, not looking
 * into what `skip` leaves out nor into a match: the blocks a rule leaves out of the content, found once each.
 */
export function outermost(roots: readonly AnyNode[], skip: (el: Element) => boolean, matches: (el: Element) => boolean): Set<Element> {
  const out = new Set<Element>();
  for (const root of roots) {
    if (!isElement(root)) continue;
    walk(root, (el) => {
      if (skip(el)) return false;
      if (!matches(el)) return true;
      out.add(el);
      return false;
    });
  }
  return out;
}

/** The first element named `name` under `root`, in document order. */
export function findFirst(root: AnyNode, name: string): Element | undefined {
  const stack: Element[] = [];
  pushElements(stack, (root as { children?: AnyNode[] }).children);
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.name === name) return el;
    pushElements(stack, el.children);
  }
  return undefined;
}

/** The body element, or the document when there is none. */
export function bodyOf(doc: Document): Element | Document {
  return findFirst(doc, 'body') ?? doc;
}

/**
 * The stacks of textContent, visibleText and visibleLength: the children lists being read, outermost first, the
 * next index in each, and whether a block's closing space follows a list. Shared (none of them calls out while it
 * reads, so no two reads overlap) and never shortened: reading a small block, which most calls do, allocates
 * nothing. A list read to its end is let go at once, and the rest when a read stops early (releaseLists): no page
 * is held once its read is done.
 */
const openLists: AnyNode[][] = [];
const nextIndex: number[] = [];
const closesBlock: boolean[] = [];
const NO_CHILDREN: AnyNode[] = [];

/** Lets go of the lists a read stopped in, from `depth` down. */
function releaseLists(depth: number): void {
  for (; depth >= 0; depth--) openLists[depth] = NO_CHILDREN;
}

/** Concatenated text of a subtree, scripts and styles left out (the subtree's own root excepted). */
export function textContent(root: AnyNode): string {
  const type = typeOf(root);
  if (type === 'text') return (root as Text).data;
  const top = (root as { children?: AnyNode[] }).children;
  if (top === undefined || type === 'comment' || type === 'directive') return '';
  let out = '';
  // The children lists being read, outermost first, and the next index in each (openLists): text is read where it stands.
  let depth = 0;
  openLists[0] = top;
  nextIndex[0] = 0;
  while (depth >= 0) {
    const children = openLists[depth];
    const i = nextIndex[depth];
    if (i === children.length) {
      openLists[depth--] = NO_CHILDREN;
      continue;
    }
    nextIndex[depth] = i + 1;
    const node = children[i];
    const kind = typeOf(node);
    if (kind === 'text') out += (node as Text).data;
    else if (kind !== 'comment' && kind !== 'directive' && kind !== 'script' && kind !== 'style') {
      const inner = (node as { children?: AnyNode[] }).children;
      if (inner !== undefined && inner.length > 0) {
        openLists[++depth] = inner;
        nextIndex[depth] = 0;
      }
    }
  }
  return out;
}

/** Whether a UTF-16 code unit is white space as `\s` (and String.prototype.trim) read it, no-break spaces included. */
export function isSpaceCode(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 &&
      (code <= 0x200a || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff))
  );
}

/**
 * Whitespace runs (including no-break spaces) collapsed to one space, trimmed. Only the runs that change are
 * matched (two or more white-space characters, or one that is not a space): a single space between words, most
 * of a text's runs, is left where it is, and a text that needs no change is not copied.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(WHITESPACE_TO_COLLAPSE, ' ').trim();
}

const WHITESPACE_TO_COLLAPSE = /\s{2,}|[^\S ]/g;

/**
 * Characters of `text` that are not white space (as collapseWhitespace reads it), counted up to `upTo` + 1 at most:
 * a lower bound of the collapsed text's length that costs no copy, so a rule looking for short lines can pass
 * over a long text node without collapsing it.
 */
export function solidLength(text: string, upTo = Infinity): number {
  let solid = 0;
  for (let i = 0; i < text.length && solid <= upTo; i++) if (!isSpaceCode(text.charCodeAt(i))) solid++;
  return solid;
}

/** Elements that separate words when text is flattened (`<td>a</td><td>b</td>` reads "a b", not "ab"). */
const BLOCKISH = new Set(['br', 'p', 'div', 'li', 'td', 'th', 'tr', 'dd', 'dt', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'section', 'article']);

/**
 * The text a reader sees in a subtree (see `isInvisible`; `root` itself is always read), whitespace
 * collapsed. Stops gathering once `limit` characters are in. A block element
 * (`BLOCKISH`) separates words on both sides.
 */
export function visibleText(root: AnyNode, limit = Infinity): string {
  if (typeOf(root) === 'text') return limit > 0 ? collapseWhitespace((root as Text).data) : '';
  let out = '';
  const top = (root as { children?: AnyNode[] }).children;
  if (top === undefined) return '';
  const rootBlock = isElementType(root.type) && BLOCKISH.has((root as Element).name);
  if (rootBlock) out += ' ';
  // The children lists being read, outermost first, the next index in each and whether a block's closing space
  // follows the list (openLists).
  let depth = 0;
  openLists[0] = top;
  nextIndex[0] = 0;
  closesBlock[0] = rootBlock;
  while (depth >= 0 && out.length < limit) {
    const children = openLists[depth];
    const i = nextIndex[depth];
    if (i === children.length) {
      if (closesBlock[depth]) out += ' ';
      openLists[depth--] = NO_CHILDREN;
      continue;
    }
    nextIndex[depth] = i + 1;
    const node = children[i];
    const type = typeOf(node);
    if (type === 'text') {
      out += (node as Text).data;
      continue;
    }
    let block = false;
    if (isElementType(type)) {
      if (isInvisible(node as Element)) continue;
      block = BLOCKISH.has((node as Element).name);
      if (block) out += ' ';
    }
    const inner = (node as { children?: AnyNode[] }).children;
    if (inner !== undefined) {
      openLists[++depth] = inner;
      nextIndex[depth] = 0;
      closesBlock[depth] = block;
    }
  }
  releaseLists(depth);
  return collapseWhitespace(out);
}

/**
 * The length of `visibleText(root, limit)`, counted without gathering the text: the same walk, the same stop once
 * `limit` characters (white space uncollapsed) are read, the collapsed text's length counted as it goes (a
 * character other than white space counts one, a run of white space between two of them one). For a rule that
 * needs a block's size, not its text: no copy of the block's text, no collapse.
 */
export function visibleLength(root: AnyNode, limit = Infinity): number {
  if (typeOf(root) === 'text') return limit > 0 ? collapsedLength((root as Text).data, 0) >>> 1 : 0;
  const top = (root as { children?: AnyNode[] }).children;
  if (top === undefined) return 0;
  // `read`: the characters gathered (visibleText's `out.length`); `state`: the collapsed length so far, times two,
  // plus one while a run of white space after a character other than white space is pending.
  let read = 0;
  let state = 0;
  const rootBlock = isElementType(root.type) && BLOCKISH.has((root as Element).name);
  if (rootBlock) read++;
  let depth = 0;
  openLists[0] = top;
  nextIndex[0] = 0;
  closesBlock[0] = rootBlock;
  while (depth >= 0 && read < limit) {
    const children = openLists[depth];
    const i = nextIndex[depth];
    if (i === children.length) {
      if (closesBlock[depth]) {
        read++;
        if (state > 0) state |= 1;
      }
      openLists[depth--] = NO_CHILDREN;
      continue;
    }
    nextIndex[depth] = i + 1;
    const node = children[i];
    const type = typeOf(node);
    if (type === 'text') {
      const data = (node as Text).data;
      read += data.length;
      state = collapsedLength(data, state);
      continue;
    }
    let block = false;
    if (isElementType(type)) {
      if (isInvisible(node as Element)) continue;
      block = BLOCKISH.has((node as Element).name);
      if (block) {
        read++;
        if (state > 0) state |= 1;
      }
    }
    const inner = (node as { children?: AnyNode[] }).children;
    if (inner !== undefined) {
      openLists[++depth] = inner;
      nextIndex[depth] = 0;
      closesBlock[depth] = block;
    }
  }
  releaseLists(depth);
  return state >>> 1;
}

/**
 * visibleLength's count carried over `text`: `state` is the collapsed length so far times two, plus one while a run
 * of white space is pending after a character other than white space (it counts one if another such character follows).
 */
function collapsedLength(text: string, state: number): number {
  for (let i = 0; i < text.length; i++) {
    if (isSpaceCode(text.charCodeAt(i))) {
      if (state > 0) state |= 1;
    } else state += 2 + (state & 1);
  }
  return state;
}

/** Text of the element's own text children only (a label like "Tags:", a heading without its `<span class="subtitle">`). */
export function ownText(el: Element): string {
  let out = '';
  for (const child of el.children) out += textData(child);
  return collapseWhitespace(out);
}
