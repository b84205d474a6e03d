import { selectAll } from 'css-select';
import { parseDocument } from 'htmlparser2';
import { quotesPage } from '../../../test/fixtures/site/render';
import { quotesForPage } from '../../../test/fixtures/site/quotes-data';
import { detectRepeatedElements } from './repeated-elements';

const BASE = 'http://127.0.0.1:4000';
const page1 = quotesPage('Quotes to Scrape', quotesForPage(1), '', 1, true);

describe('detectRepeatedElements', () => {
  it('finds the 10 quotes of a list page with a selector that matches exactly them', () => {
    const [quote, ...rest] = detectRepeatedElements(page1, `${BASE}/page/1/`);
    expect(quote).toMatchObject({ name: 'quote', count: 10, selector: 'div.quote' });
    expect(['card', 'list_item']).toContain(quote.type);
    expect(selectAll(quote.selector, parseDocument(page1))).toHaveLength(10);
    expect(rest).toHaveLength(0); // tags are fields of the quote, the pager and header are chrome
  });

  it('reports field hints: text, author, author link and a tag list', () => {
    const [quote] = detectRepeatedElements(page1, `${BASE}/page/1/`);
    const byName = Object.fromEntries(quote.fields.map((f) => [f.name, f]));
    expect(byName.text).toMatchObject({ kind: 'string', presence: 1 });
    expect(byName.author).toMatchObject({ kind: 'string', sample: quotesForPage(1)[0].author });
    expect(byName.author_url).toMatchObject({ kind: 'url', sample: `${BASE}/author/${quotesForPage(1)[0].authorSlug}/` });
    expect(byName.tags).toMatchObject({ kind: 'list', selector: 'a.tag' });
    expect(quote.description).toBe('10 × card: text, author, author link, tags');
  });

  it('names table rows, ignores the header row and keeps navigation out', () => {
    const rows = Array.from(
      { length: 6 },
      (_, i) => `<tr><td>Item ${i}</td><td>${i * 3}.50</td><td><a href="/p/${i}">view</a></td></tr>`,
    ).join('');
    const html = `<html><body><nav><ul>${['Home', 'About', 'Blog', 'Shop'].map((t) => `<li><a href="/${t}">${t}</a></li>`).join('')}</ul></nav>
      <table class="prices"><thead><tr><th>Name</th><th>Price</th><th></th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
    const found = detectRepeatedElements(html, 'https://shop.example/prices');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ name: 'table_row', type: 'table_row', count: 6 });
    expect(selectAll(found[0].selector, parseDocument(html))).toHaveLength(6);
  });

  it('keeps a link list that is the main content and names it from the URLs', () => {
    const items = Array.from({ length: 12 }, (_, i) => `<li><a href="/author/person-${i}/">Person number ${i}</a></li>`).join('');
    const html = `<html><body><header><a href="/">Site</a></header><main><h1>Authors</h1><ul>${items}</ul></main></body></html>`;
    const [list] = detectRepeatedElements(html, 'https://x.example/authors/');
    expect(list).toMatchObject({ name: 'author_link', type: 'link_list', count: 12 });
  });

  it('drops short link-only lists outside the main content (menus)', () => {
    const menu = ['One', 'Two', 'Three', 'Four'].map((t) => `<li><a href="/${t}">${t}</a></li>`).join('');
    const prose = '<p>' + 'Long running prose text that dominates the page. '.repeat(40) + '</p>';
    expect(
      detectRepeatedElements(`<html><body><div class="links"><ul>${menu}</ul></div>${prose}</body></html>`, 'https://x.example/'),
    ).toEqual([]);
  });

  it('prefers the records over their layout rows (grid of rows of cards)', () => {
    const card = (i: number): string =>
      `<div class="product-card"><img src="/img/${i}.jpg" alt=""><h3><a href="/product/item-${i}">Product ${i} name</a></h3><span class="price">$${i}.99</span></div>`;
    const rows = [0, 1, 2].map((r) => `<div class="row">${[0, 1, 2, 3].map((c) => card(r * 4 + c)).join('')}</div>`).join('');
    const [top] = detectRepeatedElements(`<html><body><div class="grid">${rows}</div></body></html>`, 'https://shop.example/c/1');
    expect(top).toMatchObject({ name: 'product_card', type: 'card', count: 12 });
    const kinds = Object.fromEntries(top.fields.map((f) => [f.name, f.kind]));
    expect(kinds).toMatchObject({ image: 'image', price: 'number', url: 'url' });
  });

  it('returns nothing for empty, text-less and garbage input, without throwing', () => {
    expect(detectRepeatedElements('', 'https://x.example/')).toEqual([]);
    expect(detectRepeatedElements('<div><div></div><div></div><div></div></div>', 'https://x.example/')).toEqual([]);
    const garbage = '<<<div class=">>' + '<li><b>x'.repeat(5000) + '</ul></table><tr><td>%%' + '\u0000\uffff';
    expect(() => detectRepeatedElements(garbage, 'not a url')).not.toThrow();
    const deep = '<div>'.repeat(20_000) + 'deep' + '</div>'.repeat(20_000);
    expect(() => detectRepeatedElements(deep, 'https://x.example/')).not.toThrow();
  });

  it('is deterministic', () => {
    expect(JSON.stringify(detectRepeatedElements(page1, `${BASE}/`))).toBe(JSON.stringify(detectRepeatedElements(page1, `${BASE}/`)));
  });
});
