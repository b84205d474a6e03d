import { findFirst, parseHtml, walk, type Element } from '../dom';
import { titleBlocks } from './title-blocks';

const item = (i: number) =>
  `<div class="item"><div class="title" id="title${i}"><h3><a href="/news/${i}">News story number ${i}</a></h3><span>May ${i}, 2025</span></div>` +
  `<p>A teaser of story ${i}, a sentence or two long.</p></div>`;

/** The ids of the blocks shown again when the blocks with an id starting with `out` are left out. */
function kept(html: string, out: RegExp): string[] {
  const doc = parseHtml(html);
  const removed = new Set<Element>();
  walk(doc, (el) => {
    if (out.test(el.attribs.id ?? '')) removed.add(el);
    return true;
  });
  const body = findFirst(doc, 'body')!;
  return [...titleBlocks([body], removed, () => false)].map((el) => el.attribs.id ?? el.name).sort();
}

describe("title blocks: an item's linked heading and its date are the item's title, not link furniture", () => {
  it("shows again each item's title block the cleaning left out, in a run of three items", () => {
    const html = `<body><div class="list">${[1, 2, 3].map(item).join('')}</div></body>`;
    expect(kept(html, /^title/)).toEqual(['title1', 'title2', 'title3']);
  });

  it("keeps a title block with a kicker's heading above the title (a series' name)", () => {
    const kicker = (i: number) =>
      `<article class="story"><div class="info" id="title${i}"><h3><a href="/show">The Show</a></h3>` +
      `<h2><a href="/ep/${i}">Episode ${i} of the show</a></h2></div></article>`;
    expect(kept(`<body>${[1, 2, 3].map(kicker).join('')}</body>`, /^title/)).toEqual(['title1', 'title2', 'title3']);
  });

  it('leaves a run of fewer than three items alone', () => {
    const html = `<body><div class="list">${[1, 2].map(item).join('')}</div></body>`;
    expect(kept(html, /^title/)).toEqual([]);
  });

  it('leaves out a block holding several headings (a whole list) or a heading without a link', () => {
    const list = `<body><div id="list">${[1, 2, 3].map(item).join('')}</div></body>`;
    expect(kept(list, /^list$/)).toEqual([]);
    const plain = (i: number) =>
      `<div class="item"><div id="title${i}"><h3>Section ${i}</h3><a href="/more">More</a></div><p>Text ${i}.</p></div>`;
    expect(kept(`<body>${[1, 2, 3].map(plain).join('')}</body>`, /^title/)).toEqual([]);
  });

  it('leaves out a long block around a linked heading (more than a title)', () => {
    const long = (i: number) =>
      `<div class="item"><div id="title${i}"><h3><a href="/n/${i}">Story ${i}</a></h3><p>${'Many words of links. '.repeat(30)}</p></div></div>`;
    expect(kept(`<body>${[1, 2, 3].map(long).join('')}</body>`, /^title/)).toEqual([]);
  });

  it('reads a heading inside the link around a whole card as a linked heading', () => {
    const card = (i: number) =>
      `<li class="job"><a href="/job/${i}"><div class="body"><div class="head" id="title${i}"><h3>Engineer ${i}</h3><p>${i}d</p></div>` +
      `<p>Company ${i}</p></div></a></li>`;
    expect(kept(`<body><ul>${[1, 2, 3].map(card).join('')}</ul></body>`, /^title/)).toEqual(['title1', 'title2', 'title3']);
  });
});
