import { parsePage } from './dom';
import { fingerprint, similarity, TemplateRegistry } from './fingerprint';
import { book, listingPage, productPage } from '../../../test/fixtures/learned-shop';

const print = (html: string) => fingerprint(parsePage('http://shop.fixture.test/', html).doc);

describe('fingerprint', () => {
  it('is the same for pages of one template whatever their text, list lengths and optional blocks', () => {
    const base = print(productPage(book(1)));
    // book 0: three authors, on sale (banner), no related books; book 7: one author, three reviews.
    for (const n of [0, 2, 6, 7, 12, 35]) expect(similarity(base, print(productPage(book(n))))).toBeGreaterThanOrEqual(0.8);
  });

  it('ignores class names and sibling order (a restyled template is the same template)', () => {
    expect(similarity(print(productPage(book(3))), print(productPage(book(3), 'drifted')))).toBe(1);
  });

  it('tells a product page from a listing page of the same site', () => {
    expect(similarity(print(productPage(book(1))), print(listingPage(1)))).toBeLessThan(0.4);
    expect(similarity(print(listingPage(1)), print(listingPage(2)))).toBe(1);
  });

  it('is the path set of block elements under body, without inline tags', () => {
    const { features } = print(
      '<html><body><div class="a"><p>x <b>y</b> <a href="/">z</a></p><ul><li>1</li><li>2</li></ul></div></body></html>',
    );
    expect(features).toEqual(['body/div', 'body/div/p', 'body/div/ul', 'body/div/ul/li']);
    expect(similarity({ features: [] }, { features: [] })).toBe(1);
  });
});

describe('TemplateRegistry', () => {
  it('groups pages per host by similarity to the page that founded each template', () => {
    const registry = new TemplateRegistry(0.6);
    const a = registry.match('shop.fixture.test', print(productPage(book(1))));
    const b = registry.match('shop.fixture.test', print(productPage(book(2))));
    const listing = registry.match('shop.fixture.test', print(listingPage(1)));
    const otherHost = registry.match('mirror.fixture.test', print(productPage(book(1))));
    expect(a.created).toBe(true);
    expect(b).toMatchObject({ created: false, template: { id: a.template.id } });
    expect(listing.created).toBe(true);
    expect(listing.template.id).not.toBe(a.template.id);
    expect(otherHost.created).toBe(true);
    expect(otherHost.template.id).not.toBe(a.template.id);
    expect(a.template.id).toMatch(/^tpl_[0-9a-f]{16}$/);
    expect(registry.templates()).toHaveLength(3);
  });

  it('keeps a known template (from the store) and matches pages to it', () => {
    const registry = new TemplateRegistry(0.6);
    registry.add({ id: 'tpl_known', host: 'shop.fixture.test', fingerprint: print(productPage(book(1))) });
    expect(registry.match('shop.fixture.test', print(productPage(book(9)))).template.id).toBe('tpl_known');
  });
});
