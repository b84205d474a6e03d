import { findFirst, parseHtml, type Element } from '../dom';
import { orphanHeadings } from './orphan-headings';

const out = (html: string, removed: (el: Element) => boolean = (el) => el.attribs.class === 'cleaned'): string[] => {
  const body = findFirst(parseHtml(html), 'body')!;
  return [...orphanHeadings([body], removed, new Set())].map((el) => el.attribs.id ?? el.name);
};

const prose = '<p>The page says what it has to say, at some length.</p>';

describe('orphanHeadings: a heading whose section the cleaning took out', () => {
  it('leaves out a heading followed by nothing shown before the next heading of its rank or the end', () => {
    const html = `<body><h2 id="a">Setup</h2>${prose}<h3 id="more">You may also like</h3><div class="cleaned"><a href="/x">Other</a></div><h2 id="b">Usage</h2>${prose}<h3 id="end">Recommended posts</h3></body>`;
    expect(out(html)).toEqual(['more', 'end']);
  });

  it('keeps a heading with a subsection, a run of headings of one rank, and a long heading', () => {
    const html =
      `<body><h2 id="parent">Guides</h2><h3 id="child">First steps</h3>${prose}` +
      `<h2 id="t1">Headline one</h2><h2 id="t2">Headline two</h2>` +
      `<p>Lead</p><h4 id="long">${'A sentence of prose a builder set in a heading tag, '.repeat(2)}</h4></body>`;
    expect(out(html)).toEqual([]);
  });
});
