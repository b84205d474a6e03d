import { findFirst, parseHtml, type Element } from '../dom';
import { mainHeading } from './main-heading';
import { textCensus } from './text-census';
import { keepBlock, tableOfContents } from './toc-links';

const never = () => false;
const links = (n: number, prefix = 'Section') =>
  Array.from({ length: n }, (_, i) => `<li><a href="s${i}.html">${prefix} ${i + 1}</a></li>`).join('');

function toc(html: string): Element | undefined {
  const body = findFirst(parseHtml(html), 'body')!;
  return tableOfContents(mainHeading(body, never), body, textCensus(body, never), never);
}

describe('tableOfContents: the link list of the section the main heading titles', () => {
  it('finds a chapter table of contents after its heading', () => {
    const html = `<body><div class="nav"><a href="a">Prev</a><a href="b">Next</a></div><div class="chapter"><div class="titlepage"><h2>Chapter 24. Localization</h2></div><div class="toc"><p><b>Table of Contents</b></p><ul>${links(12)}</ul></div><p>This chapter describes localization.</p></div></body>`;
    expect(toc(html)?.attribs.class).toBe('toc');
  });

  it("counts the page's links without its named anchors (`<a id>` without `href`)", () => {
    const anchors = Array.from({ length: 14 }, (_, i) => `<p><a id="idx-${i}"></a>The function number ${i} of the interface.</p>`).join('');
    const html = `<body><div class="sect1"><div class="titlepage"><h2>35.3. Client Interfaces</h2></div><div class="toc"><ul>${links(11)}</ul></div>${anchors}</div></body>`;
    expect(toc(html)?.attribs.class).toBe('toc');
  });

  it('leaves out a sidebar outside the heading section, a nav, and a list with too few of the page links', () => {
    expect(
      toc(`<body><div class="sidebar"><ul>${links(30)}</ul></div><div class="chapter"><h1>Title</h1><p>Text.</p></div></body>`),
    ).toBeUndefined();
    expect(toc(`<body><div class="chapter"><h1>Title</h1><nav><ul>${links(30)}</ul></nav></div></body>`)).toBeUndefined();
    expect(
      toc(`<body><div class="sidebar">${links(40, 'Menu')}</div><div class="chapter"><h1>Title</h1><ul>${links(12)}</ul></div></body>`),
    ).toBeUndefined();
  });

  it('leaves out a product grid (items open with an image or a badge) and a list after an article', () => {
    const tiles = Array.from({ length: 12 }, (_, i) => `<li><span>Best seller</span><a href="p${i}">Sofa ${i}</a></li>`).join('');
    expect(toc(`<body><section><h1>Sofas</h1><ul>${tiles}</ul></section></body>`)).toBeUndefined();
    const article = '<p>' + 'A long paragraph of the article. '.repeat(80) + '</p>';
    expect(toc(`<body><section><h1>Post</h1>${article}<ul>${links(12)}</ul></section></body>`)).toBeUndefined();
  });

  it('leaves out a sidebar column beside a short article', () => {
    const html = `<body><div class="row"><div class="content"><div><h1>Light installation</h1><p>A short post.</p></div></div><div class="sidebarfixed"><ul>${links(20)}</ul></div></div></body>`;
    expect(toc(html)).toBeUndefined();
  });

  it('leaves out prose that links a lot', () => {
    const prose = Array.from(
      { length: 12 },
      (_, i) => `<p>A long sentence of explanation that runs on for a while and links <a href="x${i}">here</a>.</p>`,
    ).join('');
    expect(toc(`<body><section><h1>Title</h1>${prose}<ul><li>one</li></ul></section></body>`)).toBeUndefined();
  });
});

describe('keepBlock: a block back into the content', () => {
  it('takes the block and what it holds out of the removed set', () => {
    const body = findFirst(parseHtml('<body><div id="t"><ul id="u"><li>a</li></ul></div></body>'), 'body')!;
    const block = findFirst(body, 'div')!;
    const removed = new Set<Element>([block, findFirst(body, 'ul')!]);
    const roots = [body];
    keepBlock(block, roots, removed, never);
    expect(removed.size).toBe(0);
    expect(roots).toEqual([body]);
  });

  it('adds a block under a removed ancestor as a root of its own, in document order', () => {
    const body = findFirst(parseHtml('<body><h1>T</h1><div id="w"><ul><li>a</li></ul></div><p>text</p></body>'), 'body')!;
    const [h1, wrapper, p] = body.children.filter((c): c is Element => 'name' in c);
    const list = findFirst(wrapper, 'ul')!;
    const roots = [h1, p];
    keepBlock(list, roots, new Set([wrapper]), never);
    expect(roots).toEqual([h1, list, p]);
  });
});
