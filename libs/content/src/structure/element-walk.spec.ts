import { parseHtml, walk, type Element } from '../dom';
import { walkElements } from './element-walk';

describe('element walk: dom.walk stacking only elements', () => {
  it('visits what dom.walk visits, in the same order, skipping the same subtrees', () => {
    const doc = parseHtml(
      '<html><head><title>t</title><script>x</script></head><body>a<div id="1"><p id="2">b<b id="3">c</b></p><ul id="4"><li id="5">d</li></ul></div><!-- c --><section id="6"><p id="7">e</p></section></body></html>',
    );
    const visitOrder = (w: typeof walk, root: Element | typeof doc) => {
      const seen: string[] = [];
      w(root, (el) => {
        seen.push(el.attribs.id ?? el.name);
        return el.attribs.id !== '4' && el.name !== 'head';
      });
      return seen;
    };
    expect(visitOrder(walkElements, doc)).toEqual(visitOrder(walk, doc));
    expect(visitOrder(walkElements, doc)).toEqual(['html', 'head', 'body', '1', '2', '3', '4', '6', '7']);
    const body = doc.children[0] as Element;
    expect(visitOrder(walkElements, body)).toEqual(visitOrder(walk, body));
  });
});
