import { findFirst, parseHtml } from '../dom';
import { regionFurniture } from './page-region';
import { isPageWrapper } from './page-wrapper';
import { textCensus } from './text-census';

const prose = (n: number) =>
  Array.from({ length: n }, (_, i) => `<p>Paragraph ${i} of the page, with a sentence or two of its own.</p>`).join('');

describe("page wrapper: a block named like furniture that holds most of the page's prose is the page", () => {
  it('reads half the region, mostly outside links, as a wrapper, and a link list of that size as not one', () => {
    expect(isPageWrapper({ text: 600, link: 40, links: 2 }, 1000)).toBe(true);
    expect(isPageWrapper({ text: 400, link: 0, links: 0 }, 1000)).toBe(false);
    expect(isPageWrapper({ text: 60, link: 0, links: 0 }, 100)).toBe(false);
    expect(isPageWrapper({ text: 900, link: 800, links: 90 }, 1000)).toBe(false);
  });

  it('keeps an off-canvas menu wrapper around the content in the main region, and leaves out a small block of that name', () => {
    const html = `<body><div class="menu-side-transition" id="wrap"><h1>Watches</h1>${prose(12)}</div><div class="menu-extra" id="small"><p>A few words.</p></div></body>`;
    const body = findFirst(parseHtml(html), 'body')!;
    const counts = textCensus(body, () => false);
    const removed = [...regionFurniture(body, counts, () => false)].map((el) => el.attribs.id);
    expect(removed).toEqual(['small']);
  });

  it('keeps a section named a header (site chrome by its class alone) that holds the page, and leaves out a <header> and a small one', () => {
    const html =
      `<body><header id="top"><a href="/">Home</a> Site</header><section class="headerWrapper" id="hero"><h1>Quality engineering</h1>${prose(12)}</section>` +
      `<div class="header-wrap" id="small"><p>A few words.</p></div></body>`;
    const body = findFirst(parseHtml(html), 'body')!;
    const counts = textCensus(body, () => false);
    const removed = [...regionFurniture(body, counts, () => false)].map((el) => el.attribs.id).sort();
    expect(removed).toEqual(['small', 'top']);
  });
});
