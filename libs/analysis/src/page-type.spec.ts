import { authorPage, quotesPage } from '../../../test/fixtures/site/render';
import { allAuthors, quotesForPage } from '../../../test/fixtures/site/quotes-data';
import { classifyPageType } from './page-type';
import { detectRepeatedElements } from './repeated-elements';
import { articlePages, bookPages } from '../../../test/fixtures/analysis-pages';

const BASE = 'http://127.0.0.1:4000';

function classify(html: string, url: string, metadata?: Parameters<typeof classifyPageType>[0]['metadata']) {
  return classifyPageType({ html, url, repeated: detectRepeatedElements(html, url), metadata });
}

describe('classifyPageType', () => {
  it('a quotes list page is a listing, because the quotes dominate the text', () => {
    const v = classify(quotesPage('Quotes to Scrape', quotesForPage(2), '', 2, true), `${BASE}/page/2/`);
    expect(v.pageType).toBe('listing');
    expect(v.confidence).toBeGreaterThan(0.5);
    expect(v.reasons.join(' ')).toMatch(/quote ×10/);
  });

  it('the site root with a dominant list is still a listing, not "home"', () => {
    expect(classify(quotesPage('Quotes to Scrape', quotesForPage(1), '', 1, true), `${BASE}/`).pageType).toBe('listing');
  });

  it('an author page is a detail page', () => {
    const v = classify(authorPage(allAuthors()[0]), `${BASE}/author/${allAuthors()[0].slug}/`);
    expect(v.pageType).toBe('detail');
    expect(v.reasons.join(' ')).toMatch(/label\/value/);
  });

  it('JSON-LD and og:type decide when present', () => {
    const html = '<html><body><h1>Thing</h1><p>Short.</p></body></html>';
    expect(classify(html, 'https://x.example/a', { jsonLd: [{ '@graph': [{ '@type': 'Product' }] }] }).pageType).toBe('product');
    expect(classify(html, 'https://x.example/a', { jsonLd: [{ '@type': ['NewsArticle'] }] }).pageType).toBe('article');
    expect(classify(html, 'https://x.example/a', { openGraph: { 'og:type': 'article' } }).pageType).toBe('article');
    expect(classify(html, 'https://x.example/a', { jsonLd: [{ '@type': 'Recipe' }] }).pageType).toBe('detail');
    expect(classify(html, 'https://x.example/search?q=mugs', {}).pageType).toBe('search');
  });

  it('real news articles from the corpus are articles', () => {
    const pages = articlePages(10);
    const types = pages.map((p) => classify(p.html, p.url).pageType);
    expect(types.filter((t) => t === 'article').length).toBeGreaterThanOrEqual(9);
  });

  it('book product pages of both shop templates are product pages (with and without JSON-LD)', () => {
    const pages = bookPages();
    expect(new Set(pages.map((p) => p.site))).toEqual(new Set(['riverbend', 'harborlane']));
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const p of pages) expect([p.id, classify(p.html, p.url).pageType]).toEqual([p.id, 'product']);
  });

  it('a book page without JSON-LD is a product page from its shop controls and identifiers', () => {
    for (const p of bookPages('riverbend')) {
      expect(p.html).not.toMatch(/ld\+json/);
      const v = classify(p.html, p.url);
      expect(v.pageType).toBe('product');
      expect(v.reasons.join(' ')).toMatch(/shop controls/);
      expect(v.reasons.join(' ')).toMatch(/product identifiers/);
    }
  });

  it('empty and garbage pages are "other"', () => {
    expect(classify('', 'https://x.example/a').pageType).toBe('other');
    expect(classify('<html><body>   </body></html>', 'bad url').pageType).toBe('other');
    expect(() => classify('<<<>>><p<p<p>' + '<div>'.repeat(5000), 'https://x.example/')).not.toThrow();
  });
});
