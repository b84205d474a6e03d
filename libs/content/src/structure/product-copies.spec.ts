import { parseHtml, type Element } from '../dom';
import { productCopies } from './product-copies';

const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `word${i + from}`).join(' ');

function copies(html: string, isShown: (el: Element) => boolean = () => true): string[] {
  return [...productCopies(parseHtml(html), () => false, isShown)].map((el) => el.attribs.id ?? el.name);
}

describe('product copies: a product page draws its description once per layout', () => {
  it('leaves out the later copies of a block, whole, and keeps the first', () => {
    const desc = `<p>${words(40)}</p><ul><li>${words(30, 100)}</li></ul>`;
    const html = `<body><h1>Tee</h1><div id="tab">${desc}</div><div id="accordion">${desc}</div><div id="sticky">${desc}</div></body>`;
    expect(copies(html)).toEqual(['accordion', 'sticky']);
  });

  it('keeps short blocks that repeat (labels, prices, options) and blocks that differ', () => {
    const html = `<body><div id="a"><p>Size guide</p></div><div id="b"><p>Size guide</p></div>
      <div id="c"><p>${words(40)}</p></div><div id="d"><p>${words(40, 1)}</p></div></body>`;
    expect(copies(html)).toEqual([]);
  });

  it('keeps the first copy the content shows: a copy it does not show is not read twice', () => {
    const desc = words(40);
    const html = `<body><nav id="menu"><p id="m">${desc}</p></nav><p id="x">${desc}</p><p id="y">${desc}</p></body>`;
    const shown = (el: Element) => el.attribs.id !== 'm';
    expect(copies(html, shown)).toEqual(['y']);
  });
});
