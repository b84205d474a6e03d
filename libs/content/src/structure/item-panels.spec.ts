import { findFirst, parseHtml, type Element } from '../dom';
import { itemPanels } from './item-panels';

const prose = 'Flexible steel blade with an ergonomic handle for precise and powerful prying, made to last.';

function panels(html: string, isSkipped: (el: Element) => boolean = () => false): string[] {
  const document = parseHtml(`<body>${html}</body>`);
  return itemPanels(document, [findFirst(document, 'main')!], isSkipped).map((el) => el.attribs.id);
}

describe("item panels: a product's details folded into an accordion inside the content", () => {
  it('finds the panels a control with aria-expanded names, inside the content, holding prose', () => {
    const html =
      `<main><div class="accordion"><button aria-expanded="true" aria-controls="d">Description</button>` +
      `<div id="d" role="region"><p>${prose}</p><p>${prose}</p></div>` +
      `<button aria-expanded="false" aria-controls="s">Specifications</button><div id="s" role="region"><p>${prose}</p><p>Part: IF145</p></div></div></main>` +
      `<aside><button aria-expanded="false" aria-controls="x">More</button><div id="x"><p>${prose}</p></div></aside>`;
    expect(panels(html)).toEqual(['d', 's']);
  });

  it("not a tile's pop-up menu, a filter's values, a panel of links, nor a skipped one", () => {
    const values = Array.from({ length: 12 }, (_, i) => `<label>Size ${i}</label>`).join('');
    const links = Array.from({ length: 5 }, (_, i) => `<a href="/c${i}">${prose.slice(0, 40)}</a>`).join(' ');
    const html =
      `<main><button aria-expanded="false" aria-controls="m">More</button><span id="m">Help &amp; report</span>` +
      `<button aria-expanded="false" aria-controls="f">Size</button><div id="f" role="group">${values}</div>` +
      `<button aria-expanded="false" aria-controls="l">Shop</button><div id="l">${links}</div>` +
      `<button aria-expanded="false" aria-controls="h">Hidden</button><div id="h"><p>${prose}</p></div></main>`;
    expect(panels(html, (el) => el.attribs.id === 'h')).toEqual([]);
  });
});
