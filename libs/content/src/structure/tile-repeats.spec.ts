import { parseHtml } from '../dom';
import { tileRepeats } from './tile-repeats';

const card = (i: number) =>
  `<article class="card"><a id="pic${i}" href="/story/${i}"><img src="/${i}.jpg" alt="Story ${i} told in full"></a>` +
  `<h2><a id="title${i}" href="/story/${i}">Story ${i} told in full</a></h2>` +
  `<p>A teaser for story ${i}, with a sentence or two.</p><a id="again${i}" href="/story/${i}">Story ${i} told in full</a>` +
  `<a id="tag${i}" href="/topic/tech">Tech</a></article>`;

function named(html: string): string[] {
  return [...tileRepeats([parseHtml(html)], () => false)].map((el) => el.attribs.id ?? el.name).sort();
}

describe("tile repeats: an item's second link to its own address is not its text twice", () => {
  it("leaves out each item's picture link and the copy of its title, the heading's title staying", () => {
    const html = `<body><h1>Stories</h1><div class="list">${[1, 2, 3].map(card).join('')}</div></body>`;
    expect(named(html)).toEqual(['again1', 'again2', 'again3', 'pic1', 'pic2', 'pic3']);
  });

  it('keeps a topic linked from every item, and a title named again inside a sentence', () => {
    const item = (i: number) =>
      `<li><a href="/t/${i}">Title of item ${i}</a> <a href="/topic">Tech</a><p>Read <a href="/t/${i}">Title of item ${i}</a> today.</p></li>`;
    expect(named(`<body><ul>${[1, 2, 3].map(item).join('')}</ul></body>`)).toEqual([]);
  });

  it("keeps the picture when the content leaves the item's title block out (its alt text is the only title)", () => {
    const html = `<body><div class="list">${[1, 2, 3].map(card).join('')}</div></body>`;
    const leftOut = (el: { attribs: Record<string, string> }) => /^(?:title|again)/.test(el.attribs.id ?? '');
    expect([...tileRepeats([parseHtml(html)], leftOut)]).toEqual([]);
  });

  it('leaves out a line an item draws twice (its date and read time under its picture and under its title)', () => {
    const story = (i: number) =>
      `<article><div class="top"><a id="pic${i}" href="/s/${i}"><img src="/${i}.jpg" alt="Story ${i} in full"></a><p id="meta${i}">1d ago, 3 min read</p></div>` +
      `<div class="body"><h2><a href="/s/${i}">Story ${i} in full</a></h2><p id="again${i}">1d ago, 3 min read</p></div></article>`;
    expect(named(`<body>${[1, 2, 3].map(story).join('')}</body>`)).toEqual(['again1', 'again2', 'again3', 'pic1', 'pic2', 'pic3']);
  });

  it('reads a block once when every item of a grid meets in it (pictures in one row, titles in the next)', () => {
    const ids = [1, 2, 3];
    const html =
      '<body><table>' +
      `<tr>${ids.map((i) => `<td><a id="pic${i}" href="/b/${i}"><img src="/${i}.jpg" alt="Book ${i} of the year"></a></td>`).join('')}</tr>` +
      `<tr>${ids.map((i) => `<td><a id="title${i}" href="/b/${i}">Book ${i} of the year</a><p id="note${i}">Shortlisted</p></td>`).join('')}</tr>` +
      '</table></body>';
    // The three clusters share the table; it titles three addresses, so its lines (the same note thrice) stay.
    expect(named(html)).toEqual(['pic1', 'pic2', 'pic3']);
  });

  it('leaves a page with fewer than three such items alone (one article linking its own picture)', () => {
    const html = `<body><h1>Stories</h1><div class="list">${[1, 2].map(card).join('')}</div></body>`;
    expect(named(html)).toEqual([]);
  });

  it('keeps a picture link whose address has no other link with text', () => {
    const tile = (i: number) => `<div class="tile"><a href="/g/${i}"><img src="/${i}.jpg" alt="Photo ${i}"></a><p>Caption ${i}</p></div>`;
    expect(named(`<body>${[1, 2, 3].map(tile).join('')}</body>`)).toEqual([]);
  });

  it("leaves out a picture link whose alt text is its item's plain-text name, in three items or more", () => {
    const item = (i: number) =>
      `<div class="grid-item"><a id="pic${i}" href="/sku/${i}"><img src="/${i}.jpg" alt="Frozen fish sticks ${i}"></a>` +
      `<span>Frozen fish sticks ${i}</span></div>`;
    expect(named(`<body><div class="grid">${[1, 2, 3].map(item).join('')}</div></body>`)).toEqual(['pic1', 'pic2', 'pic3']);
    expect(named(`<body><div class="grid">${[1, 2].map(item).join('')}</div></body>`)).toEqual([]);
  });
});
