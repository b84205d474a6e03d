import { findFirst, parseHtml, type Element } from '../dom';
import { cleanedSections } from './cleaned-sections';
import { textCensus } from './text-census';

const never = () => false;
const prose = 'Audit the local search performance of every location across hundreds of data points in minutes, and fix it.';

function restored(html: string): string[] {
  const body = findFirst(parseHtml(html), 'body')!;
  const root = findFirst(body, 'main')!;
  const removed = new Set<Element>();
  const byId = (el: Element) => {
    if (el.attribs.class?.includes('cleaned')) removed.add(el);
    for (const child of el.children) if ('name' in child) byId(child as Element);
  };
  byId(root);
  return cleanedSections([root], removed, textCensus(body, never), never).map((el) => el.attribs.id);
}

describe('cleanedSections: the sections the cleaning took out that read as sections', () => {
  it('gives back a cleaned panel with a heading and prose, the outermost one only', () => {
    const html = `<body><main><p>${prose}</p><section id="panel" class="panel cleaned"><div id="inner" class="cleaned"><h3>Go beyond rank reporting</h3><p>${prose}</p><p>${prose}</p></div></section></main></body>`;
    expect(restored(html)).toEqual(['panel']);
  });

  it('leaves out what is named for authors or sign-ups, link lists, and blocks without a heading', () => {
    const author = `<div id="author" class="author-box cleaned"><h3>About the author</h3><p>${prose}</p><p>${prose}</p></div>`;
    const links = `<div id="links" class="cleaned"><h3>Read next</h3><p><a href="/a">${prose}</a></p><p><a href="/b">${prose}</a></p></div>`;
    const plain = `<div id="plain" class="cleaned"><p>${prose}</p><p>${prose}</p></div>`;
    expect(restored(`<body><main><p>${prose}</p>${author}${links}${plain}</main></body>`)).toEqual([]);
  });

  it('leaves out a cleaned block holding a form to fill in (a lead form)', () => {
    const form = `<div id="lead" class="cleaned"><h2>Get a free quote today.</h2><p>${prose}</p><p>${prose}</p><form><input type="email" name="e"></form></div>`;
    expect(restored(`<body><main><p>${prose}</p>${form}</main></body>`)).toEqual([]);
  });
});
