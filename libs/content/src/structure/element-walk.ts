import { isElement, type AnyNode, type Element } from '../dom';

/**
 * dom.ts walk for the parts that run over the whole page before the content is chosen: the elements under `root`
 * (not `root` itself) depth-first in pre-order, `visit` returning false skipping the subtree; only elements are
 * stacked (a page's text nodes, as many as its elements, are never pushed nor popped).
 */
export function walkElements(root: AnyNode, visit: (el: Element) => boolean | void): void {
  const stack: Element[] = [];
  pushChildren(root, stack);
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (visit(el) !== false) pushChildren(el, stack);
  }
}

function pushChildren(node: AnyNode, stack: Element[]): void {
  const children = (node as { children?: AnyNode[] }).children;
  if (children === undefined) return;
  for (let i = children.length - 1; i >= 0; i--) {
    const child = children[i];
    if (isElement(child)) stack.push(child);
  }
}
