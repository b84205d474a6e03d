import { parseHtml } from '../dom';
import { recommendationBlocks } from './recommendations';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const tiles = (n: number) => Array.from({ length: n }, (_, i) => `<li><a href="/p/${i}">Item ${i}</a> €${i}9.00</li>`).join('');

function named(html: string): string[] {
  return [...recommendationBlocks(parseHtml(html), () => false)].map((el) => el.attribs.id ?? el.name);
}

describe('recommendations: other items for sale (or other stories) are not the page’s content', () => {
  it('leaves out the block a carousel title starts, with its items', () => {
    const html = `<body><h1>Dress</h1><div id="desc"><p>${words(120)}</p></div>
      <div id="related"><div class="head"><h2>Related products</h2></div><ul>${tiles(4)}</ul></div>
      <section id="also"><h3>You may also like…</h3><ul>${tiles(6)}</ul></section></body>`;
    expect(named(html)).toEqual(['related', 'also']);
  });

  it('stops at the smallest block holding the items, not the wrapper around the description', () => {
    const html = `<body><div id="page"><div id="product"><h1>Socks</h1><p>${words(150)}</p></div>
      <div id="fbt"><h2>Frequently bought together</h2><a href="/a">A</a><a href="/b">B</a><a href="/c">C</a></div></div></body>`;
    expect(named(html)).toEqual(['fbt']);
  });

  it('reads the titles stores and articles use, whole', () => {
    for (const title of [
      'Recommended accessories',
      'Customers who viewed this item also viewed',
      'More from Bershka',
      'Similar items shipping to France',
    ])
      expect(named(`<body><p>${words(100)}</p><section id="s"><h2>${title}</h2><ul>${tiles(4)}</ul></section></body>`)).toEqual(['s']);
    expect(
      named(`<body><p>${words(100)}</p><section id="s"><h2>Related products and the law</h2><ul>${tiles(4)}</ul></section></body>`),
    ).toEqual([]);
  });

  it('leaves out a title alone when its items are loaded by a script', () => {
    expect(
      named(`<body><h1>Lamp</h1><p>${words(100)}</p><div><h2 id="t">Customers also viewed</h2><div class="slot"></div></div></body>`),
    ).toEqual(['t']);
  });

  it('keeps a block with words before the title, with the page’s <h1> or holding most of the page (the title alone goes), and prose', () => {
    const titleOnly = (block: string, after: string) => named(`<body><div id="d">${block}</div><p>${after}</p></body>`);
    expect(titleOnly(`<p>Made by hand.</p><h2>Related products</h2><ul>${tiles(4)}</ul>`, words(200))).toEqual(['h2']);
    expect(titleOnly(`<h2>Similar items</h2><h1>Chair</h1><ul>${tiles(4)}</ul>`, words(200))).toEqual(['h2']);
    expect(titleOnly(`<h2>Recently viewed</h2><ul>${tiles(40)}</ul>`, words(20))).toEqual(['h2']);
    expect(named(`<body><h1>Kettle</h1><p>Customers also bought it for the office, and you may also like its sound.</p></body>`)).toEqual(
      [],
    );
  });
});
