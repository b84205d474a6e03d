import { findFirst, isElement, parseHtml } from '../dom';
import { textCensus } from './text-census';
import { sectionsBeforeRun } from './title-sections';

const never = () => false;
const section = (id: string, title: string) =>
  `<div class="sect" id="${id}"><h2>${title}</h2><p>Prose of the ${title} section, long enough to read.</p></div>`;

function between(html: string): string[] {
  const body = findFirst(parseHtml(html), 'body')!;
  const entry = findFirst(body, 'main')!;
  const run = entry.children.filter(isElement).filter((c) => c.attribs.class === 'sect');
  return sectionsBeforeRun(findFirst(body, 'h1'), run, textCensus(body, never), never).map((el) => el.attribs.id ?? el.name);
}

describe('sectionsBeforeRun: the sections between the title and the chosen run', () => {
  it('keeps a section with its own heading between the title block and the run', () => {
    const html = `<body><main><div class="name"><h1>SELECT</h1><p>retrieve rows</p></div><div id="syn"><h2>Synopsis</h2><pre>SELECT ...</pre></div>${section('a', 'Description')}${section('b', 'Parameters')}</main></body>`;
    expect(between(html)).toEqual(['syn']);
  });

  it('leaves out blocks without a heading of their own and link-dense ones', () => {
    const share = '<div id="share"><a href="/s1">Share on one</a> <a href="/s2">Share on two</a></div>';
    const links = '<div id="related"><h2>Related</h2><a href="/r1">One related page</a> <a href="/r2">Another related page</a></div>';
    const html = `<body><main><div class="name"><h1>Post</h1></div>${share}${links}<div id="lead"><p>A lead paragraph.</p></div>${section('a', 'One')}${section('b', 'Two')}</main></body>`;
    expect(between(html)).toEqual([]);
  });

  it('needs a run of headed sections, and a section of their level', () => {
    const paras = '<p class="sect">First paragraph of the story.</p><p class="sect">Second paragraph of the story.</p>';
    expect(
      between(`<body><main><div class="name"><h1>Story</h1></div><div id="player"><h4>Listen</h4><p>3:51</p></div>${paras}</main></body>`),
    ).toEqual([]);
    const html = `<body><main><div class="name"><h1>SELECT</h1></div><div id="syn"><h4>Listen</h4><pre>x</pre></div>${section('a', 'One')}${section('b', 'Two')}</main></body>`;
    expect(between(html)).toEqual([]);
  });

  it('needs a run of two or more siblings after the heading', () => {
    const html = `<body><main><div class="name"><h1>Post</h1></div><div id="syn"><h2>Synopsis</h2><pre>x</pre></div>${section('a', 'One')}</main></body>`;
    expect(between(html)).toEqual([]);
  });
});
