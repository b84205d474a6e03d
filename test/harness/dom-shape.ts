import type { AnyNode } from 'domhandler';

/**
 * Every node under `root` in document order, as one JSON line each: its depth, type, name, attributes (in order)
 * and data. Two parses give the same DOM when their shapes are equal (the specs of the parser's speed-ups).
 */
export function domShape(root: AnyNode): string[] {
  const out: string[] = [];
  const stack: [AnyNode, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    const n = node as { type: string; name?: string; attribs?: Record<string, string>; data?: string; children?: AnyNode[] };
    out.push(JSON.stringify([depth, n.type, n.name, n.attribs && Object.entries(n.attribs), n.data]));
    const children = n.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i], depth + 1]);
  }
  return out;
}
