import { DomHandler, type AnyNode, type Element } from 'domhandler';
import { Parser } from 'htmlparser2';
import { DomBuilder } from './dom-builder';

const PAGE =
  '<!DOCTYPE html><html><head><title>T &amp; U</title><style>p{}</style><script>var a = "<b>";</script></head>' +
  '<body class="x"><p>one<b>two</b>three<br>four</p><ul><li>a<li>b</ul><table><tr><td>c</table>' +
  '<svg viewBox="0 0 1 1"><foreignObject><p>in</p></foreignObject></svg><!-- note --><img src=/i.png alt=x>tail</body></html>';

function build(handler: DomHandler): AnyNode[] {
  new Parser(handler, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true }).end(PAGE);
  return handler.root.children;
}

/** Every node's kind, name, attributes, text, and links to its parent and siblings, as plain data. */
function shape(nodes: AnyNode[], parentPath = ''): unknown[] {
  return nodes.map((node, i) => {
    const path = `${parentPath}/${i}`;
    const el = node as Element & { data?: string };
    return {
      type: node.type,
      name: el.name,
      attribs: el.attribs,
      data: el.data,
      parentIsSet: node.parent !== null,
      prev: node.prev === (nodes[i - 1] ?? null),
      next: node.next === (nodes[i + 1] ?? null),
      children: el.children ? shape(el.children, path) : undefined,
    };
  });
}

describe('DomBuilder: domhandler with child lists made without an allocation site', () => {
  it('builds the DOM domhandler builds: the same nodes, attributes, text and links', () => {
    expect(shape(build(new DomBuilder()))).toEqual(shape(build(new DomHandler())));
  });

  it("gives every element a list of its own, and an element's list holds its children", () => {
    const elements: Element[] = [];
    const collect = (nodes: AnyNode[]) => {
      for (const node of nodes) {
        if ('children' in node) {
          elements.push(node as Element);
          collect((node as Element).children);
        }
      }
    };
    collect(build(new DomBuilder()));
    expect(elements.length).toBeGreaterThan(15);
    expect(new Set(elements.map((el) => el.children)).size).toBe(elements.length);
    const empty = elements.filter((el) => el.children.length === 0).map((el) => el.name);
    expect(empty).toEqual(expect.arrayContaining(['br', 'img']));
    for (const el of elements) for (const child of el.children) expect(child.parent).toBe(el);
  });
});
