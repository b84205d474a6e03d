import { findFirst, parseHtml, type Element } from '../dom';
import { listDepth, mainRegion, regionFurniture } from './page-region';
import { textCensus } from './text-census';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const setup = (html: string) => {
  const doc = parseHtml(html);
  const body = findFirst(doc, 'body')!;
  return { doc, body, counts: textCensus(body, (el) => el.name === 'script') };
};
const ids = (set: Set<Element>) => [...set].map((el) => el.attribs.id ?? el.name).sort();

describe('the main region: <main> or the body, without its furniture', () => {
  it('takes the <main> holding most text when it holds enough of the page, else the body', () => {
    const big = setup(`<body><nav>${words(10)}</nav><main id="m">${words(50)}</main></body>`);
    expect(mainRegion(big.body, big.counts).attribs.id).toBe('m');
    const tiny = setup(`<body><main id="m">${words(2)}</main><div>${words(80)}</div></body>`);
    expect(mainRegion(tiny.body, tiny.counts).name).toBe('body');
    // Of two holding as much, the first in document order: the outer of two nested, the earlier of two apart.
    const nested = setup(`<body><main id="outer"><div role="main" id="inner">${words(50)}</div></main></body>`);
    expect(mainRegion(nested.body, nested.counts).attribs.id).toBe('outer');
    const apart = setup(`<body><main id="one">${words(50)}</main><main id="two">${words(50)}</main></body>`);
    expect(mainRegion(apart.body, apart.counts).attribs.id).toBe('one');
  });

  it('leaves out chrome, asides, dialogs, unlikely names and menus of short links', () => {
    const links = Array.from({ length: 5 }, (_, i) => `<a href="/c${i}">Cat ${i}</a>`).join('');
    const { body, counts } = setup(
      `<body><header id="top">Site</header><aside id="side">${words(5)}</aside><div role="dialog" id="modal">${words(5)}</div>` +
        `<div class="sidebar" id="sb">${words(5)}</div><div id="menu-block">${links}</div>` +
        `<div id="grid">${Array.from({ length: 4 }, (_, i) => `<div><a href="/p${i}">Product ${i}</a> $${i}9.00 in stock</div>`).join('')}</div>` +
        `<p id="text">${words(100)}</p><script id="s">x</script></body>`,
    );
    expect(ids(regionFurniture(body, counts, (el) => el.name === 'script'))).toEqual(['menu-block', 'modal', 's', 'sb', 'side', 'top']);
  });

  it("keeps a section that only its name would leave out (a site builder's promo or carousel component)", () => {
    const section = (id: string, cls: string) => `<div class="${cls}" id="${id}"><h2>Heading</h2><p>${words(40)}</p></div>`;
    const { body, counts } = setup(`<body>${section('promo', 'promo-container')}${section('side', 'sidebar')}<p>${words(20)}</p></body>`);
    expect(ids(regionFurniture(body, counts, () => false))).toEqual([]);
    const short = setup(`<body><div class="promo" id="promo"><h2>Offer</h2><p>${words(5)}</p></div><p>${words(20)}</p></body>`);
    expect(ids(regionFurniture(short.body, short.counts, () => false))).toEqual(['promo']);
  });

  it('keeps a menu that is larger than everything else kept (a table of contents), and elements it is told to keep', () => {
    const toc = `<ul id="toc">${Array.from({ length: 30 }, (_, i) => `<li><a href="/ch${i}">Chapter ${i}</a></li>`).join('')}</ul>`;
    const { body, counts } = setup(`<body><h1>Manual</h1>${toc}</body>`);
    expect(ids(regionFurniture(body, counts, () => false))).toEqual([]);
    // Not the site's menu above the page's <h1>, however little the page holds below it (its items drawn by a script).
    const site = `<div id="site">${Array.from({ length: 30 }, (_, i) => `<a href="/s${i}">Section ${i}</a>`).join('')}</div>`;
    const above = setup(`<body>${site}<h1>Monitor mounts</h1><p>${words(10)}</p></body>`);
    expect(ids(regionFurniture(above.body, above.counts, () => false))).toEqual(['site']);
    const noHeading = setup(`<body>${site}<p>${words(10)}</p></body>`);
    expect(ids(regionFurniture(noHeading.body, noHeading.counts, () => false))).toEqual([]);
    // Nor, on a page without an <h1>, a menu whose lists nest (a mega-menu: departments, then their categories).
    const department = (d: number) =>
      `<li><a href="/d${d}">Department ${d}</a><ul>${Array.from({ length: 8 }, (_, i) => `<li><a href="/d${d}/c${i}">Category ${i}</a></li>`).join('')}</ul></li>`;
    const mega = setup(`<body><ul id="mega">${[1, 2, 3].map(department).join('')}</ul><p>${words(10)}</p></body>`);
    expect(ids(regionFurniture(mega.body, mega.counts, () => false))).toEqual(['mega']);
    expect(listDepth(findFirst(mega.doc, 'ul')!)).toBe(2);
    const posts = setup('<body><div class="comment" id="c1">A post</div><div class="comment" id="c2">Another</div></body>');
    const keep = new Set([findFirst(posts.doc, 'div')!]);
    expect(ids(regionFurniture(posts.body, posts.counts, () => false, keep))).toEqual(['c2']);
  });

  it("leaves out a listing's controls (filters, sorting, breadcrumbs, buttons, form controls) unless one holds much of the region", () => {
    const items = Array.from({ length: 6 }, (_, i) => `<div class="item"><a href="/p${i}">Product ${i}</a> ${words(12)}</div>`).join('');
    const { body, counts } = setup(
      `<body><div class="breadcrumbs" id="crumbs">Home &gt; Shop &gt; Desks</div><div id="sort-by">Sort and Filter</div>` +
        `<select id="sel"><option>Price</option></select><a class="btn-primary" id="cta" href="/go">Get started</a>` +
        `<div id="grid">${items}</div><a class="button" id="long" href="/x">${words(30)}</a></body>`,
    );
    expect(ids(regionFurniture(body, counts, () => false))).toEqual(['crumbs', 'cta', 'sel', 'sort-by']);
    // A block named like a filter that holds the listing itself (a theme's `facets-container` around the grid) stays.
    const wrapped = setup(`<body><div class="facets-container" id="wrap">${items}</div><p>${words(5)}</p></body>`);
    expect(ids(regionFurniture(wrapped.body, wrapped.counts, () => false))).toEqual([]);
  });

  it("leaves out the poster's card and signature of a post, keeping the post", () => {
    const post = (i: number) =>
      `<div class="post" id="p${i}"><div class="message-userDetails" id="u${i}">Join Date: Aug 2008 Posts: 1,077</div>` +
      `<div class="message-body">${words(40)}</div><div class="signature" id="s${i}">Sent from my phone</div></div>`;
    const { body, counts } = setup(`<body>${[1, 2, 3].map(post).join('')}</body>`);
    expect(ids(regionFurniture(body, counts, () => false))).toEqual(['s1', 's2', 's3', 'u1', 'u2', 'u3']);
  });
});
