import { parseDocument } from 'htmlparser2';
import type { AnyNode, Document, Element, Text } from 'domhandler';

export type { AnyNode, Document, Element };

/** Subtrees whose text a reader never sees. */
const INVISIBLE = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'iframe', 'object', 'title', 'meta', 'link']);

/** A parsed page plus per-element visible text lengths, computed once and shared by every detector. */
export interface PageDom {
  doc: Document;
  /** Visible (collapsed-whitespace) text characters under each element. */
  textLen: Map<Element, number>;
  /** Visible text characters of the whole document. */
  totalText: number;
  /** Elements by tag name, in document order (for cheap selector checks). */
  byTag: Map<string, Element[]>;
}

/** Parses forgivingly (htmlparser2 never throws on bad markup); a leading BOM is dropped. */
export function parseHtml(html: string): PageDom {
  const source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  const doc = parseDocument(source, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  const textLen = new Map<Element, number>();
  const byTag = new Map<string, Element[]>();
  const totalText = measureText(doc, textLen, byTag);
  return { doc, textLen, totalText, byTag };
}

export function isElement(node: AnyNode): node is Element {
  const type: string = node.type;
  return type === 'tag' || type === 'script' || type === 'style';
}

export function isInvisible(el: Element): boolean {
  return INVISIBLE.has(el.name) || el.attribs.hidden !== undefined || el.attribs['aria-hidden'] === 'true';
}

export function childElements(node: AnyNode): Element[] {
  const children = (node as { children?: AnyNode[] }).children;
  return children ? children.filter(isElement) : [];
}

/**
 * Post-order, iterative (garbage markup can nest thousands deep): fills `textLen` for every visible
 * element and returns the document's total. Whitespace runs count as one character.
 */
function measureText(root: Document, textLen: Map<Element, number>, byTag: Map<string, Element[]>): number {
  const stack: Array<{ node: AnyNode; done: boolean }> = [{ node: root, done: false }];
  const sums = new Map<AnyNode, number>();
  while (stack.length > 0) {
    const top = stack.pop()!;
    const node = top.node;
    if (top.done) {
      let sum = 0;
      for (const child of (node as { children: AnyNode[] }).children) sum += sums.get(child) ?? 0;
      sums.set(node, sum);
      if (isElement(node)) textLen.set(node, sum);
      continue;
    }
    const type: string = node.type;
    if (type === 'text') {
      sums.set(node, collapsedLength((node as Text).data));
      continue;
    }
    if (isElement(node)) {
      const list = byTag.get(node.name);
      if (list) list.push(node);
      else byTag.set(node.name, [node]);
    }
    if (isElement(node) && isInvisible(node)) {
      textLen.set(node, 0);
      continue;
    }
    const children = (node as { children?: AnyNode[] }).children;
    if (!children) continue;
    stack.push({ node, done: true });
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], done: false });
  }
  return sums.get(root) ?? 0;
}

function collapsedLength(text: string): number {
  let n = 0;
  let space = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ws = c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 0xa0;
    if (ws) {
      if (!space) n++;
      space = true;
    } else {
      n++;
      space = false;
    }
  }
  return space && n > 0 ? n - 1 : n;
}

/** Visible text of a subtree, whitespace collapsed (iterative). */
export function visibleText(root: AnyNode, limit = Infinity): string {
  let out = '';
  const stack: AnyNode[] = [root];
  while (stack.length > 0 && out.length < limit) {
    const node = stack.pop()!;
    const type: string = node.type;
    if (type === 'text') {
      out += (node as Text).data;
      continue;
    }
    if (isElement(node) && node !== root && isInvisible(node)) continue;
    if (isElement(node) && (node.name === 'br' || node.name === 'p' || node.name === 'div' || node.name === 'li')) out += ' ';
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Text of the node's own text children only (labels like "Tags:" sit there). */
export function ownText(el: Element): string {
  let out = '';
  for (const child of el.children) if ((child.type as string) === 'text') out += (child as Text).data;
  return out.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Depth-first pre-order visit of descendant elements; returning false skips the subtree. */
export function walk(root: AnyNode, visit: (el: Element) => boolean | void): void {
  const stack: AnyNode[] = [];
  const rootChildren = (root as { children?: AnyNode[] }).children ?? [];
  for (let i = rootChildren.length - 1; i >= 0; i--) stack.push(rootChildren[i]);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    if (visit(node) === false) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
}

export function classList(el: Element): string[] {
  const raw = el.attribs.class;
  if (!raw) return [];
  return [...new Set(raw.split(/\s+/).filter((c) => c.length > 0))].sort();
}

/** The body element, or the document when there is none. */
export function bodyOf(dom: PageDom): Element | Document {
  let body: Element | undefined;
  walk(dom.doc, (el) => {
    if (body) return false;
    if (el.name === 'body') {
      body = el;
      return false;
    }
    return el.name === 'html';
  });
  return body ?? dom.doc;
}

export function ancestors(el: Element): Element[] {
  const out: Element[] = [];
  let p = el.parent;
  while (p && isElement(p)) {
    out.push(p);
    p = p.parent;
  }
  return out;
}
