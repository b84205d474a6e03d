import { findFirst, parseHtml, type Element } from '../dom';
import { textOf } from '../readability/text-measure';
import { isRendered, keepWhole, mainHeading, mainHeadings } from './main-heading';

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

  it('reads only h1-h6 as headings, whatever other name an element has (`<constructor>`, `<tostring>`)', () => {
    expect(heading('<body><constructor>Not a heading</constructor><tostring>Nor this</tostring><h2>Post</h2></body>')).toBe('h2:Post');
    expect(heading('<body><constructor>A Post</constructor><p>Text</p></body>', 'A Post')).toBeUndefined();
  });

  it('leaves out navigation, asides, footers and logo headings that only link home', () => {
    expect(heading('<body><header><h1><a href="/">Site</a></h1></header><nav><h1>Menu</h1></nav><main><h2>Post</h2></main></body>')).toBe(
      'h2:Post',
    );
  });

  it('takes a heading linked home or to the page itself when it says the whole title', () => {
    expect(heading('<body><h1><a href="/">Remote Full Stack Jobs</a></h1><h2>Latest posts</h2></body>', 'Remote Full Stack Jobs')).toBe(
      'h1:Remote Full Stack Jobs',
    );
    expect(
      heading('<body><h1><a href="#">Agency rates for all 50 states</a></h1><h2>Improve</h2></body>', 'Agency rates for all 50 states'),
    ).toBe('h1:Agency rates for all 50 states');
    expect(heading('<body><h1><a href="/">Example</a></h1><h2>Post</h2></body>', 'Example')).toBe('h2:Post');
  });

  it('takes a heading in the banner only when it says the title', () => {
    const html =
      '<body><div role="banner"><h1>Example Site</h1><h2>Are you going to the top conferences?</h2></div><h3>Who is eligible?</h3></body>';
    expect(heading(html, 'Are you going to the top conferences? - Example Site')).toBe('h2:Are you going to the top conferences?');
    expect(heading(html, 'Something else')).toBe('h3:Who is eligible?');
  });

  it('takes a heading in an aside only when it says the title', () => {
    const html = '<body><aside><h1>Gaming News Weekly</h1><h2>Popular</h2></aside><main><h2>Episodes</h2></main></body>';
    expect(heading(html, 'GNW - Gaming News Weekly | Example')).toBe('h1:Gaming News Weekly');
    expect(heading(html, 'Something else')).toBe('h2:Episodes');
  });

  it('matches any of the document titles (`<title>` and `og:title`)', () => {
    const found = mainHeading(findFirst(parseHtml('<body><h2>Other</h2><h2>Best bike trails in town</h2></body>'), 'body')!, never, [
      'Where to ride | Example',
      'Best bike trails in town',
    ]);
    expect(found && textOf(found)).toBe('Best bike trails in town');
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

  it("leaves out a heading that says only the title's last part, the site's name", () => {
    const html =
      '<body><div class="menu-bar"><h1 class="menu-title">The Rust Book</h1></div><main><h2>Defining traits</h2><p>Text</p></main></body>';
    expect(heading(html, 'Defining Traits and Their Bounds - The Rust Book')).toBe('h2:Defining traits');
    expect(heading(html, 'The Rust Book: Defining Traits')).toBe('h1:The Rust Book');
  });

  it("leaves out a heading that says only words of the site's name, none of the page's", () => {
    const html =
      '<body><div class="widget"><h2>Kabar Islam</h2></div><div class="post"><h2>Jangan Membenci Satu Kaum Secara Berlebihan</h2><p>Text</p></div></body>';
    const body = findFirst(parseHtml(html), 'body')!;
    const titled = (title: string) => mainHeadings(body, never, title).map((h) => textOf(h));
    expect(titled('Jangan Membenci Satu Kaum Secara Berlebihan | Kabar tentang Dunia Islam')).toEqual([
      'Jangan Membenci Satu Kaum Secara Berlebihan',
    ]);
    // One word of the page's title in it: it may title the page.
    expect(titled('Jangan Membenci Satu Kaum Secara Berlebihan Islam | Kabar tentang Dunia Islam')).toEqual([
      'Jangan Membenci Satu Kaum Secara Berlebihan',
      'Kabar Islam',
    ]);
  });

  it('of one level, prefers a heading above or in the chosen content to one after it', () => {
    const html =
      '<body><article><header><h1>The best trails for biking</h1></header><p>Text</p></article><div class="widget"><h1>Where to kayak in town</h1></div></body>';
    const body = findFirst(parseHtml(html), 'body')!;
    const title = 'Our favorite biking spots in town | Example';
    expect(textOf(mainHeadings(body, never, title)[0])).toBe('Where to kayak in town');
    expect(textOf(mainHeadings(body, never, title, [findFirst(body, 'article')!])[0])).toBe('The best trails for biking');
  });

  it('keeps a lower heading that says the title more fully than the main one', () => {
    const html =
      '<body><div class="hero"><h1>Best travel insurance for seniors</h1></div><section><h2>Best travel insurance for seniors in 2025</h2><p>Text</p></section></body>';
    const found = mainHeadings(findFirst(parseHtml(html), 'body')!, never, 'Best Travel Insurance for Seniors in 2025');
    expect(found.map((h) => h.name)).toEqual(['h1', 'h2']);
  });

  it("keeps a lower heading that says the title without the site's name, which makes the title too long to match", () => {
    const html =
      '<body><h1 class="page-title">Reviews</h1><div><h2>Reviews of our yoga classes</h2></div><blockquote>A quote.</blockquote><h2>Reviews from our retreats</h2></body>';
    const body = findFirst(parseHtml(html), 'body')!;
    const titled = (title: string) => mainHeadings(body, never, title).map((h) => textOf(h));
    expect(titled('Reviews of our yoga classes, retreats and trainings — Yoga With Olivia')).toEqual([
      'Reviews',
      'Reviews of our yoga classes',
    ]);
    // A title the <h2> says whole makes it the main heading; one the <h1> says whole adds nothing.
    expect(titled('Reviews of our yoga classes')).toEqual(['Reviews of our yoga classes', 'Reviews']);
    expect(titled('Reviews — Yoga With Olivia')).toEqual(['Reviews']);
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

describe('keepWhole: the heading as it is written', () => {
  it('takes what the cleaning removed inside the heading back, and nothing outside it', () => {
    const body = findFirst(
      parseHtml('<body><h2><a href="/p">Day 15</a> <span class="title-date">Dec 2025</span></h2><div class="date">x</div></body>'),
      'body',
    )!;
    const [h2, div] = body.children.filter((c): c is Element => 'name' in c);
    const span = findFirst(h2, 'span')!;
    const removed = new Set<Element>([span, div]);
    keepWhole(h2, removed);
    expect([...removed]).toEqual([div]);
  });
});
