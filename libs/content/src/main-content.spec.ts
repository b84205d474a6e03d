import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHtml, type Element } from './dom';
import { extractMainContent } from './main-content';
import { textOf } from './readability/text-measure';

const sentence = (i: number) => `Sentence ${i} of the article, with enough words, commas, and detail to read as prose. `;
const prose = (n: number, from = 0) => Array.from({ length: n }, (_, i) => sentence(from + i)).join('');

/** The text the main content keeps: the roots in order, without what it removed. */
function kept(html: string, page: Parameters<typeof extractMainContent>[2] = {}): string {
  const doc = parseHtml(html);
  const { roots, removed } = extractMainContent(doc, (el) => el.name === 'script' || el.name === 'noscript', page);
  const text = (el: Element): string =>
    removed.has(el) ? '' : el.children.map((c) => ('name' in c ? text(c as Element) : textOf(c as unknown as Element))).join('');
  return roots.map(text).join(' ').replace(/\s+/g, ' ').trim();
}

describe('extractMainContent: the article, without the page around it', () => {
  it('keeps the article and leaves out navigation, sidebar and footer', () => {
    const html =
      '<body><nav><a href="/">Home</a><a href="/news">News</a></nav>' +
      `<div class="sidebar"><p>${prose(2, 100)}</p></div>` +
      `<div class="article-body"><h1>Title</h1><p>${prose(4)}</p><p>${prose(4, 4)}</p></div>` +
      '<footer>Copyright</footer></body>';
    const text = kept(html);
    expect(text).toContain('Sentence 0 of the article');
    expect(text).toContain('Sentence 7 of the article');
    expect(text).not.toContain('Sentence 100');
    expect(text).not.toContain('Home');
    expect(text).not.toContain('Copyright');
  });

  it('drops a list of links inside the article (related stories) and keeps a data table', () => {
    const related = `<ul>${Array.from({ length: 6 }, (_, i) => `<li><a href="/s${i}">Related story number ${i}</a></li>`).join('')}</ul>`;
    const data = `<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>$5</td></tr></table>`;
    const text = kept(`<body><article><p>${prose(6)}</p>${related}${data}<p>${prose(6, 6)}</p></article></body>`);
    expect(text).toContain('Sentence 11');
    expect(text).toContain('Basic');
    expect(text).not.toContain('Related story');
  });

  it('merges a sibling block that scores like the article (an article split in two columns)', () => {
    const text = kept(
      `<body><div><div class="col"><p>${prose(5)}</p></div><div class="col"><p>${prose(5, 5)}</p></div><div><a href="/x">Share</a></div></div></body>`,
    );
    expect(text).toContain('Sentence 0');
    expect(text).toContain('Sentence 9');
  });

  it('keeps every post of a thread, the replies in a section named for them included, and not the poster cards', () => {
    const body = (i: number) => `<div class="post-body"><p>${prose(i === 0 ? 8 : 4, i * 10)}</p></div>`;
    const html =
      '<body><nav><a href="/">Forum</a><a href="/new">New</a><a href="/top">Top</a></nav><div id="thread">' +
      `<article class="topic"><div class="user-info">Poster 0, joined 2019</div>${body(0)}</article>` +
      '<section id="replies">' +
      [1, 2, 3].map((i) => `<article class="reply"><div class="user-info">Poster ${i}, joined 2020</div>${body(i)}</article>`).join('') +
      '</section></div><footer>Copyright</footer></body>';
    const text = kept(html);
    expect(text).toContain('Sentence 0 of');
    expect(text).toContain('Sentence 33 of');
    expect(text).not.toContain('joined');
    expect(text).not.toContain('Copyright');
    // An article's comments stay out: the page says it is an article.
    expect(kept(html, { kinds: new Set(['article']) })).not.toContain('Sentence 33 of');
  });

  it("keeps a declared article's grab, but not a short block of a listing that declares itself an article", () => {
    const items = Array.from(
      { length: 12 },
      (_, i) => `<div class="card"><h2>Trail ${i}</h2><div class="desc">Difficulty: easy, loop of ${i} miles</div></div>`,
    );
    const html = `<body><main><div class="intro"><p>${prose(3)}</p></div><div class="cards">${items.join('')}</div></main></body>`;
    const article = { kinds: new Set(['article'] as const) };
    expect(kept(html, article)).toContain('Trail 11');
    // An article long enough to be one keeps the grab whatever the region holds besides.
    const links = Array.from(
      { length: 40 },
      (_, i) => `<div class="card"><a href="/t${i}"><h2>Trail ${i}</h2><span>Difficulty: easy, loop of ${i} miles</span></a></div>`,
    );
    const long = `<body><main><article><p>${prose(14)}</p></article><div class="cards">${links.join('')}</div></main></body>`;
    expect(kept(long, article)).not.toContain('Trail 11');
    expect(kept(long)).toContain('Trail 11');
  });

  it('leaves out a block a framework class hides (a duplicate for small screens), not the visible one', () => {
    const html = `<body><article><p>${prose(8)}</p><div class="specs">Fabric: combed cotton</div><div class="specs hide">Fabric: combed cotton (mobile copy)</div></article></body>`;
    const text = kept(html);
    expect(text).toContain('Fabric: combed cotton');
    expect(text).not.toContain('mobile copy');
  });

  it('scores a fragment without <html> or <body>', () => {
    expect(kept(`<div class="menu"><a href="/">Home</a></div><div><p>${prose(8)}</p></div>`)).toContain('Sentence 7');
  });

  it('relaxes its rules when the strict grab finds too little text, and keeps the longest grab', () => {
    // Everything sits in an "unlikely" comment block: the first grab strips it, a later one keeps it.
    const text = kept(`<body><div class="comment"><p>${prose(8)}</p></div></body>`);
    expect(text).toContain('Sentence 0');
    expect(text).toContain('Sentence 7');
  });

  it('reads an app shell from its <noscript> (a forum front end writes its crawler view there)', () => {
    const text = kept(`<body><div id="splash">Loading…</div><noscript><div class="topic"><p>${prose(6)}</p></div></noscript></body>`);
    expect(text).toContain('Sentence 5');
  });

  it('takes the main region when the content is a grid of items, not one body of prose', () => {
    const item = (i: number) => `<div class="product-card"><a href="/p${i}">Walnut desk number ${i}</a><span>$${i}99.00</span></div>`;
    const html =
      '<body><nav><a href="/">Home</a><a href="/shop">Shop</a><a href="/help">Help</a></nav>' +
      `<main><h1>Desks</h1><p>Our desks, all in stock.</p><div class="grid">${Array.from({ length: 12 }, (_, i) => item(i)).join('')}</div></main>` +
      '<footer>Copyright</footer></body>';
    const text = kept(html);
    expect(text).toContain('Walnut desk number 0');
    expect(text).toContain('Walnut desk number 11$1199.00');
    expect(text).not.toContain('Copyright');
    expect(text).not.toContain('Help');
  });

  it('keeps every post of a thread, not the longest one', () => {
    const post = (i: number, n: number) =>
      `<article class="message"><div class="user">member${i}</div><div class="body"><p>${prose(n, i * 10)}</p></div></article>`;
    const text = kept(
      `<body><div class="thread">${post(1, 8)}${post(2, 2)}${post(3, 2)}${post(4, 3)}</div><aside><p>${prose(1, 900)}</p></aside></body>`,
    );
    for (const i of [1, 2, 3, 4]) expect(text).toContain(`member${i}`);
    expect(text).toContain('Sentence 40');
    expect(text).not.toContain('Sentence 900');
  });

  it('does not widen to blocks that are only alike in layout (grid rows, plain divs)', () => {
    const teaser = (i: number) => `<p><a href="/s${i}">Elsewhere on the site: a teaser for story ${i}</a>, another line about it.</p>`;
    for (const row of ['<div class="row">', '<div>']) {
      const text = kept(
        `<body>${row}<div class="story"><p>${prose(8)}</p></div></div>${row}${teaser(1)}</div>${row}${teaser(2)}</div></body>`,
      );
      expect(text).toContain('Sentence 7');
      expect(text).not.toContain('teaser for story');
    }
    // Items of one kind still widen the grab.
    const text = kept(
      `<body><div class="post"><p>${prose(8)}</p></div><div class="post">${teaser(1)}</div><div class="post">${teaser(2)}</div></body>`,
    );
    expect(text).toContain('teaser for story 2');
  });

  it('keeps all the sibling sections of a reference page and its title (PostgreSQL’s CREATE TABLE)', () => {
    const html = readFileSync(join(__dirname, '../../../test/fixtures/content/pg-sql-createtable.html'), 'utf8');
    const text = kept(html, { title: 'CREATE TABLE' });
    for (const section of [
      'CREATE TABLE — define a new table',
      'Synopsis',
      'Description',
      'Parameters',
      'Examples',
      'CREATE TABLE distributors',
    ]) {
      expect(text).toContain(section);
    }
    expect(text).not.toContain('Prev');
  });

  it('keeps the page’s heading when the winning block is below it, and declared articles keep readability’s grab', () => {
    const html = `<body><div class="page"><h1>How to plant tomatoes</h1><div class="meta"><a href="/a">Author</a></div><div class="text"><p>${prose(8)}</p></div></div></body>`;
    expect(kept(html)).toMatch(/^How to plant tomatoes .*Sentence 7/);
    const related = `<div class="more-grid">${Array.from({ length: 8 }, (_, i) => `<div class="card"><a href="/s${i}">Another story about the garden, part ${i}</a> <span>${i + 2} min read</span></div>`).join('')}</div>`;
    const article = `<body><main><article><p>${prose(3)}</p></article>${related}</main></body>`;
    expect(kept(article, { kinds: new Set(['article']) })).not.toContain('Another story');
    expect(kept(article)).toContain('Another story');
  });
});
