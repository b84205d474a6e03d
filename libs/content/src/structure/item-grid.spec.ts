import { findFirst, parseHtml, walk, type Element } from '../dom';
import { ItemGrid } from './item-grid';
import { regionFurniture } from './page-region';
import { textCensus } from './text-census';

const card = (i: number) =>
  `<figure id="t${i}"><a href="/p/${i}"><img src="/i/${i}.jpg" alt=""></a><a href="/p/${i}?color=red">Trail shoe ${i}</a>` +
  `<span>$${i}9.00</span></figure>`;

function setUp(html: string) {
  const body = findFirst(parseHtml(html), 'body')!;
  const counts = textCensus(body, () => false);
  const byId = (id: string) => {
    let found: Element | undefined;
    walk(body, (el) => {
      if (el.attribs.id === id) found = el;
      return found === undefined;
    });
    return found!;
  };
  return { body, counts, byId, grid: new ItemGrid(counts) };
}

describe('item grid: a run of tiles is what a listing shows, whatever each tile looks like alone', () => {
  it('reads cards whose links lead to their item as tiles, and a block they fill as a grid', () => {
    const { grid, byId } = setUp(
      `<body><h1>Shoes</h1><div class="promo-grid" id="g"><div class="wrap">${[1, 2, 3, 4].map(card).join('')}</div></div></body>`,
    );
    expect(grid.isTile(byId('t1'))).toBe(true);
    expect(grid.isTile(byId('g'))).toBe(true);
  });

  it('does not read a menu (one link each, leading everywhere), a comment run or a carousel as a grid', () => {
    const menu = `<ul id="m">${[1, 2, 3, 4].map((i) => `<li id="l${i}"><a href="/c/${i}">Category ${i}</a></li>`).join('')}</ul>`;
    const columns = `<div id="cols">${[1, 2, 3].map((i) => `<div class="col" id="c${i}"><a href="/a${i}">A</a> <a href="/b${i}">B</a> <a href="/c${i}">C</a> <a href="/d${i}">D</a></div>`).join('')}</div>`;
    const comments = `<div id="cm">${[1, 2, 3].map((i) => `<div class="comment" id="k${i}"><a href="/u/${i}">User</a> said something ${i}</div>`).join('')}</div>`;
    const carousel = `<div class="carousel" id="car">${[5, 6, 7].map(card).join('')}</div>`;
    const { grid, byId } = setUp(`<body>${menu}${columns}${comments}${carousel}</body>`);
    for (const id of ['m', 'l1', 'cols', 'c1', 'cm', 'k1', 'car']) expect([id, grid.isTile(byId(id))]).toEqual([id, false]);
  });

  it("keeps a grid's tiles in the main region where each alone reads as furniture or a menu", () => {
    const tiles = [1, 2, 3].map(
      (i) => `<div class="teaser" id="s${i}"><a href="/s/${i}"><h3>Story ${i}</h3></a> A short summary of story ${i}.</div>`,
    );
    const links = [1, 2, 3].map(
      (i) => `<li class="item" id="p${i}"><a href="/p/${i}">Lamp ${i}</a> <a href="/p/${i}">Brass</a> <a href="/p/${i}">$${i}0</a></li>`,
    );
    const { body, counts } = setUp(`<body><main><h1>News</h1><div>${tiles.join('')}</div><ul>${links.join('')}</ul></main></body>`);
    const removed = [...regionFurniture(body, counts, () => false)].map((el) => el.attribs.id);
    expect(removed).toEqual([]);
  });

  it("keeps a tile's title bar named like a page's header, and leaves out its other parts named like furniture", () => {
    const job = (i: number) =>
      `<li class="job"><a href="/co/${i}">Company ${i}</a><a href="/job/${i}"><div class="job__body">` +
      `<div class="job__header" id="bar${i}"><h3><span class="job__header__title">Engineer ${i}</span></h3><p>${i}d</p></div>` +
      `<p class="job__extra" id="extra${i}">Joined ${i} May</p><p>Remote</p></div></a><p>Full time, from any country, salary on request</p></li>`;
    const { body, counts } = setUp(`<body><main><h1>Jobs</h1><ul>${[1, 2, 3, 4].map(job).join('')}</ul></main></body>`);
    const removed = [...regionFurniture(body, counts, () => false)].map((el) => el.attribs.id).sort();
    expect(removed).toEqual(['extra1', 'extra2', 'extra3', 'extra4']);
  });
});
