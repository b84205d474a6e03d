import { Parser, type ParserOptions } from 'htmlparser2';
import { DomHandler, type AnyNode, type Document } from 'domhandler';
import { domShape } from '../../../test/harness/dom-shape';
import { DomBuilder } from './dom-builder';

/** Every node in document order with its class, children's count and the positions of its parent and siblings. */
function links(root: Document): string[] {
  const order: AnyNode[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    order.push(node);
    const children = 'children' in node ? node.children : [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  const at = (node: AnyNode | null) => (node === null ? -1 : order.indexOf(node));
  return order.map((node) => {
    const own = Object.keys(node).join(',');
    const children = 'children' in node ? node.children.length : '-';
    return `${node.constructor.name} ${own} ${children} ${at(node.parent)} ${at(node.prev)} ${at(node.next)}`;
  });
}

function parse(html: string, lean: boolean, options: ParserOptions = { decodeEntities: true }): Document {
  if (!lean) {
    const handler = new DomHandler();
    new Parser(handler, options).end(html);
    return handler.root;
  }
  const builder = new DomBuilder();
  new Parser(builder, options).end(html);
  return builder.finish();
}

function expectSame(html: string, options?: ParserOptions): void {
  const lean = parse(html, true, options);
  const stock = parse(html, false, options);
  expect(domShape(lean)).toEqual(domShape(stock));
  expect(links(lean)).toEqual(links(stock));
}

describe('DomBuilder: the tree DomHandler builds', () => {
  const pages = [
    '<!DOCTYPE html><html><head><title>A &amp; B</title></head><body><p class="x" id=z>One &lt; two</p>text<br>more</body></html>',
    '<div>a<b>b<i>c</i></b><!-- x --><!-- y -->d<script>s()</script><style>p{}</style>e<p>f<p>g</div>',
    '<ul><li>one<li>two</ul><table><tr><td>a<td>b</table><form><form><input name=q></form></p></br>',
    '<svg><clipPath/><circle r=1 /><foreignObject><p>in</p></foreignObject></svg><math><mi>x</mi></math>',
    '<body><![CDATA[<div>x</div>]]><svg><![CDATA[in svg]]></svg>',
    'plain text only',
    '',
    '<div><p>cut off <a href="x',
    '<div><p>cut off <a href',
    '<div>cut off in a comment <!-- never closed',
    '</div></p>closing first<div>',
  ];

  it('builds the same nodes, classes, fields and links', () => {
    for (const html of pages) expectSame(html);
  });

  it('builds CDATA sections as DomHandler does where the parser reports them', () => {
    expectSame('<a>x<![CDATA[one]]>y</a>', { xmlMode: true });
    expectSame('<p><![CDATA[one]]><![CDATA[two]]></p>', { recognizeCDATA: true });
  });

  it('builds the same tree on random markup', () => {
    const pieces = ['<', '>', '/', '=', '"', ' ', 'a', 'div', 'p', 'li', 'br', 'svg', '</', '<!--', '-->', '<![CDATA[', ']]>', 'x&amp;'];
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let n = 0; n < 300; n++) {
      let html = '';
      for (let i = 0; i < 40; i++) html += pieces[Math.floor(random() * pieces.length)];
      expectSame(html);
    }
  });

  it('gives every element its own children array', () => {
    const root = parse('<div><p>a</p><p></p></div><div></div>', true);
    const [first, second] = root.children as [Document, Document];
    expect(first.children).not.toBe(second.children);
    expect(Object.isFrozen(first.children)).toBe(false);
    expect(Object.isFrozen(second.children)).toBe(false);
  });
});
