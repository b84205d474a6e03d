import { isElement, isInvisible, parseHtml, textData, type AnyNode, type Document, type Element } from '@app/content';

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

/** Parses (forgivingly, as every reader of a page does) and measures the page once for every detector. */
export function parsePageDom(html: string): PageDom {
  const doc = parseHtml(html);
  const textLen = new Map<Element, number>();
  const byTag = new Map<string, Element[]>();
  const totalText = measureText(doc, textLen, byTag);
  return { doc, textLen, totalText, byTag };
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
      sums.set(node, collapsedLength(textData(node)));
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

export function classList(el: Element): string[] {
  const raw = el.attribs.class;
  if (!raw) return [];
  return [...new Set(raw.split(/\s+/).filter((c) => c.length > 0))].sort();
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
