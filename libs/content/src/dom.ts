import { parseDocument } from 'htmlparser2';
import type { AnyNode, Document, Element, Text } from 'domhandler';
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
 */
export function parseHtml(html: string): Document {
  let source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  if (source.includes('<![CDATA[')) source = source.replace(CDATA_OUTSIDE_RAW_TEXT, (m) => (m.charCodeAt(1) === 33 ? '<!---->' : m));
  return parseDocument(source, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
}

/** A CDATA opener, or a whole script/style element (raw text, where it is left alone). */
const CDATA_OUTSIDE_RAW_TEXT = /<(script|style)\b[\s\S]*?<\/\1\s*>|<!\[CDATA\[/gi;

/** The node type as a plain string ('tag', 'text', 'script', 'style', 'comment', ...). */
export function typeOf(node: AnyNode): string {
  const type: string = node.type;
  return type;
}

/** domhandler gives <script>/<style> their own node types; all three are elements. */
export function isElement(node: AnyNode): node is Element {
  const type = typeOf(node);
  return type === 'tag' || type === 'script' || type === 'style';
}

/** The character data of a text node ('' for anything else). */
export function textData(node: AnyNode): string {
  return typeOf(node) === 'text' ? (node as Text).data : '';
}

export function childElements(node: AnyNode): Element[] {
  const children = (node as { children?: AnyNode[] }).children;
  return children ? children.filter(isElement) : [];
}

/** Depth-first pre-order visit of the elements under `root` (not `root` itself); `visit` returning false skips the subtree. */
export function walk(root: AnyNode, visit: (el: Element) => boolean | void): void {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isElement(node) && node !== root) {
      if (visit(node) === false) continue;
    }
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
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
  let found: Element | undefined;
  walk(root, (el) => {
    if (found) return false;
    if (el.name === name) {
      found = el;
      return false;
    }
    return true;
  });
  return found;
}

/** The body element, or the document when there is none. */
export function bodyOf(doc: Document): Element | Document {
  return findFirst(doc, 'body') ?? doc;
}

/** Concatenated text of a subtree, scripts and styles left out (the subtree's own root excepted). */
export function textContent(root: AnyNode): string {
  let out = '';
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const type = typeOf(node);
    if (type === 'text') {
      out += (node as Text).data;
      continue;
    }
    if (type === 'comment' || type === 'directive') continue;
    if ((type === 'script' || type === 'style') && node !== root) continue;
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

/** Whitespace runs (including no-break spaces) collapsed to one space, trimmed. */
export function collapseWhitespace(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

const SPACE = /\s/;

/**
 * Characters of `text` that are not white space (as collapseWhitespace reads it), counted up to `upTo` + 1 at most:
 * a lower bound of the collapsed text's length that costs no copy, so a rule looking for short lines can pass
 * over a long text node without collapsing it.
 */
export function solidLength(text: string, upTo = Infinity): number {
  let solid = 0;
  for (let i = 0; i < text.length && solid <= upTo; i++) {
    const code = text.charCodeAt(i);
    if (code === 32 || (code >= 9 && code <= 13)) continue;
    if (code < 128 || !SPACE.test(text[i])) solid++;
  }
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
  let out = '';
  // A string on the stack is the separator that closes a block element.
  const stack: Array<AnyNode | ' '> = [root];
  while (stack.length > 0 && out.length < limit) {
    const node = stack.pop()!;
    if (node === ' ') {
      out += node;
      continue;
    }
    if (typeOf(node) === 'text') {
      out += (node as Text).data;
      continue;
    }
    if (isElement(node)) {
      if (node !== root && isInvisible(node)) continue;
      if (BLOCKISH.has(node.name)) {
        out += ' ';
        stack.push(' ');
      }
    }
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return collapseWhitespace(out);
}

/** Text of the element's own text children only (a label like "Tags:", a heading without its `<span class="subtitle">`). */
export function ownText(el: Element): string {
  let out = '';
  for (const child of el.children) out += textData(child);
  return collapseWhitespace(out);
}
