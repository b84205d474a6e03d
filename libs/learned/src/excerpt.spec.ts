import { parsePage } from './dom';
import { excerptOf, locate } from './excerpt';
import type { FieldRule } from './program';

const filler = (words: number) => Array.from({ length: words }, (_, i) => `word${i}`).join(' ');
const page = parsePage(
  'http://shop.fixture.test/books/1',
  `<html><head><meta property="og:title" content="Salt Roads"><title>Salt Roads | Shop</title></head><body>
  <nav><a href="/">Home</a> ${filler(300)}</nav>
  <div class="details"><h1>Salt Roads</h1>
    <p class="by">By: <a href="/a/1">Ada Quist</a>, <a href="/a/2">Bram Vance</a></p>
    <table><tr><td><b>ISBN-13:</b> 9781916042131</td></tr><tr><td><b>Publisher:</b> Tidewater Press</td></tr></table>
  </div>
  <section class="reviews">${filler(400)}</section>
  <div class="huge"><span class="long">${filler(500)}</span></div>
  </body></html>`,
);
const rule = (r: Partial<FieldRule> & Pick<FieldRule, 'field' | 'selector'>): FieldRule => ({
  pick: 'first',
  source: { kind: 'text' },
  steps: [],
  parse: 'string',
  ...r,
});

describe('excerptOf', () => {
  it("gives the text of the blocks around the rules' values and a line per meta value, far shorter than the page", () => {
    const rules = [
      rule({ field: 'title', selector: 'meta[property="og:title"]', source: { kind: 'attr', name: 'content' } }),
      rule({ field: 'author', selector: 'p.by > a', pick: 'all' }),
      rule({ field: 'isbn', selector: 'td', source: { kind: 'after-label', label: 'ISBN-13:' } }),
      rule({ field: 'publisher', selector: 'td', source: { kind: 'after-label', label: 'Publisher:' } }),
    ];
    const excerpt = excerptOf(rules, page)!;
    expect(excerpt.split('\n…\n')).toEqual([
      'og:title: Salt Roads',
      // The block as the content converter renders pages for the model: markdown.
      ['# Salt Roads', 'By: Ada Quist, Bram Vance', 'ISBN-13: 9781916042131', 'Publisher: Tidewater Press'].join('\n\n'),
    ]);
    expect(excerpt).not.toContain('word1');
  });

  it('has no excerpt when a rule finds nothing, when a value sits in a block too long to cut, or when the excerpt grows long', () => {
    expect(excerptOf([rule({ field: 'x', selector: 'p.missing' })], page)).toBeUndefined();
    expect(excerptOf([rule({ field: 'x', selector: 'span.long' })], page)).toBeUndefined();
    const many = parsePage(
      'http://shop.fixture.test/list',
      `<html><body>${Array.from({ length: 12 }, (_, i) => `<div class="card"><p>${filler(60)} item${i}</p></div>`).join('')}</body></html>`,
    );
    expect(excerptOf([rule({ field: 'items', selector: 'div.card > p', pick: 'all' })], many)).toBeUndefined();
  });

  it('locates the first element that yields a value for `first`, and every one (up to ten) for `all`', () => {
    expect(locate(rule({ field: 'a', selector: 'p.by > a' }), page).map((el) => el.attribs.href)).toEqual(['/a/1']);
    expect(locate(rule({ field: 'a', selector: 'p.by > a', pick: 'all' }), page).map((el) => el.attribs.href)).toEqual(['/a/1', '/a/2']);
    expect(locate(rule({ field: 'a', selector: 'p.by > a', parentLabel: 'Edited By:' }), page)).toEqual([]);
  });
});
