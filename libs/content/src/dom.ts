import { parseDocument } from 'htmlparser2';
import type { AnyNode, Document, Element, Text } from 'domhandler';

export type { AnyNode, Document, Element };

/** Parses forgivingly (htmlparser2 never throws on bad markup); a leading BOM is dropped. */
export function parseHtml(html: string): Document {
  const source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  return parseDocument(source, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
}

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
export function textOf(node: AnyNode): string {
  return typeOf(node) === 'text' ? (node as Text).data : '';
}

/** Depth-first visit of all elements; `visit` returning false skips the subtree. */
export function walkElements(root: AnyNode, visit: (el: Element) => boolean | void): void {
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

export function findFirst(root: AnyNode, name: string): Element | undefined {
  let found: Element | undefined;
  walkElements(root, (el) => {
    if (found) return false;
    if (el.name === name) {
      found = el;
      return false;
    }
    return true;
  });
  return found;
}

/** Concatenated text of a subtree, without recursion (safe on arbitrarily deep garbage markup). */
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

export function collapseWhitespace(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}
