import { findFirst, isElement, parseHtml } from '../dom';
import { sectionsBetween } from './sections-between';
import { textCensus } from './text-census';

const never = () => false;
const prose = 'Prose of a section of the landing page, long enough to be read as one and not as a label or a button.';

function between(html: string): string[] {
  const body = findFirst(parseHtml(html), 'body')!;
  const run = findFirst(body, 'main')!
    .children.filter(isElement)
    .filter((c) => c.attribs.class === 'chosen');
  return sectionsBetween(run, textCensus(body, never), never).map((el) => el.attribs.id ?? el.name);
}

describe('sectionsBetween: the sections between the ones the grab chose', () => {
  it('keeps a section lying between two chosen ones, not one before or after them', () => {
    const html = `<body><main><div id="before"><h2>Before</h2><p>${prose}</p></div><div class="chosen"><p>${prose}</p></div><div id="cards"><h2>Cards</h2><p>${prose}</p></div><div class="chosen"><p>${prose}</p></div><div id="after"><p>${prose}</p></div></main></body>`;
    expect(between(html)).toEqual(['cards']);
  });

  it('leaves out link-dense blocks, short ones and site chrome between them', () => {
    const links = '<div id="links"><a href="/a">One related page of the site</a> <a href="/b">Another related page of the site</a></div>';
    const html = `<body><main><div class="chosen"><p>${prose}</p></div>${links}<div id="short">Call us</div><footer><p>${prose}</p></footer><div class="chosen"><p>${prose}</p></div></main></body>`;
    expect(between(html)).toEqual([]);
  });

  it('needs two chosen siblings of one parent', () => {
    const html = `<body><main><div class="chosen"><p>${prose}</p></div><div id="next"><p>${prose}</p></div></main></body>`;
    expect(between(html)).toEqual([]);
  });
});
