import { parseHtml } from '../dom';
import { otherItems } from './other-items';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const tiles = (n: number, price = (i: number) => `€${i}9.95`) =>
  Array.from({ length: n }, (_, i) => `<li><a href="/p/${i}">Item ${i}</a><span>${price(i)}</span></li>`).join('');

function named(html: string): string[] {
  return [...otherItems(parseHtml(html), () => false)].map((el) => el.attribs.id ?? el.name);
}

describe('other items: a product page’s strips of other items for sale', () => {
  it('leaves out a run of linked tiles with prices, with its title, whatever the title says', () => {
    const html = `<body><div id="product"><h1>Jacket</h1><p>€49.99</p><p>${words(200)}</p></div>
      <section id="strip"><h2>Sponsored by our brands</h2><ul>${tiles(5)}</ul></section></body>`;
    expect(named(html)).toEqual(['strip']);
  });

  it('reads prices written the ways shops write them', () => {
    for (const price of ['$19.99', '49,35€', 'USD 120', '1.299 kr', '£ 5'])
      expect(
        named(`<body><h1>Mug</h1><p>${price}</p><p>${words(200)}</p><div id="g"><ul>${tiles(4, () => price)}</ul></div></body>`),
      ).toEqual(['g']);
  });

  it('keeps tiles without prices or links, a product’s own options, a grid with the <h1> and a grid that is most of the page', () => {
    const plain = Array.from({ length: 4 }, (_, i) => `<li><a href="/p/${i}">Item ${i}</a></li>`).join('');
    const options = Array.from({ length: 4 }, (_, i) => `<li><label>Pack of ${i + 1}</label> $${i + 1}9.00</li>`).join('');
    expect(named(`<body><h1>Mug</h1><p>${words(200)}</p><ul>${plain}</ul><ul>${options}</ul></body>`)).toEqual([]);
    expect(named(`<body><div><ul><li><h1>Mug</h1></li>${tiles(4)}</ul></div><p>${words(200)}</p></body>`)).toEqual([]);
    expect(named(`<body><h1>Mugs</h1><ul>${tiles(40)}</ul></body>`)).toEqual([]);
  });

  it('keeps every strip when the <h1> has no price of its own before them: it titles them (a listing)', () => {
    const html = `<body><h1>Indoor pottery</h1><p>Pots for every room.</p><div id="g"><ul>${tiles(6)}</ul></div><p>${words(200)}</p>
      <div id="h"><h2>On sale</h2><ul>${tiles(4)}</ul></div><footer>${words(100)}</footer></body>`;
    expect(named(html)).toEqual([]);
  });

  it('takes in a title beside the grid but never the product’s description', () => {
    const html = `<body><h1>Mug</h1><p>$24.00</p><div id="outer"><p>${words(200)}</p><div id="inner"><h2>Bundles</h2><ul>${tiles(4)}</ul></div></div></body>`;
    expect(named(html)).toEqual(['inner']);
  });
});
