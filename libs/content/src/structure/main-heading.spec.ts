import { findFirst, parseHtml, type Element } from '../dom';
import { textOf } from '../readability/text-measure';
import { isRendered, mainHeading, mainHeadings } from './main-heading';

const never = () => false;
const heading = (html: string, title = '') => {
  const found = mainHeading(findFirst(parseHtml(html), 'body')!, never, title);
  return found ? `${found.name}:${textOf(found)}` : undefined;
};

describe('mainHeading: the heading that titles the page', () => {
  it('takes the first heading of the highest level present, whatever that level is', () => {
    expect(heading('<body><div class="sect1"><h2 class="title">1.3. Creating a Database</h2><h3>Notes</h3></div></body>')).toBe(
      'h2:1.3. Creating a Database',
    );
  });

  it('leaves out navigation, asides, footers and logo headings that only link home', () => {
    expect(heading('<body><header><h1><a href="/">Site</a></h1></header><nav><h1>Menu</h1></nav><main><h2>Post</h2></main></body>')).toBe(
      'h2:Post',
    );
  });

  it('prefers the heading that says what the document title says', () => {
    const html = '<body><h1>The Blog</h1><article><h2>Catering tips for your next event</h2><h2>Why cater?</h2></article></body>';
    expect(heading(html, 'Catering Tips for Your Next Event | Example Catering')).toBe('h2:Catering tips for your next event');
    expect(heading(html, '')).toBe('h1:The Blog');
  });

  it('among headings of the top level, takes the one whose words are most in the title (a banner or placeholder comes first)', () => {
    const html = '<body><h1>The Blog</h1><h1>Catering 101: catering tips to make your next event a success</h1><p>Text</p></body>';
    expect(heading(html, "Catering Tips for a Successful Event | Example's Catering")).toBe(
      'h1:Catering 101: catering tips to make your next event a success',
    );
    const service = '<body><h1>Dental care</h1><p>Text</p><h1>Ohio Health centers that offer dental</h1></body>';
    expect(heading(service, 'Dental Care | Ohio Health')).toBe('h1:Dental care');
  });

  it('keeps the top heading beside the title-matching one when it words the title otherwise', () => {
    const html =
      '<body><h1>Top 10 U.S. Manufacturers of Household Appliances</h1><div class="post"><h3>Top 10 Household Appliance Manufacturers in the U.S.A.</h3><p>Text</p></div></body>';
    const found = mainHeadings(findFirst(parseHtml(html), 'body')!, never, 'Top 10 Appliance Manufacturers in the U.S.A. - Example');
    expect(found.map((h) => h.name)).toEqual(['h3', 'h1']);
    const blog = '<body><h1>Example Blog</h1><h2>Catering tips for your next event</h2></body>';
    expect(mainHeadings(findFirst(parseHtml(blog), 'body')!, never, 'Catering tips for your next event').map((h) => h.name)).toEqual([
      'h2',
    ]);
  });

  it('tells whether an element is rendered with roots and removed elements', () => {
    const doc = parseHtml('<body><div id="root"><div id="gone"><h1>Title</h1></div><p>Text</p></div></body>');
    const root = findFirst(doc, 'div')!;
    const gone = root.children[0] as Element;
    const h1 = findFirst(doc, 'h1')!;
    expect(isRendered(h1, [root], new Set(), never)).toBe(true);
    expect(isRendered(h1, [root], new Set([gone]), never)).toBe(false);
    expect(isRendered(h1, [findFirst(doc, 'p')!], new Set(), never)).toBe(false);
  });
});
