import { PageGrounding } from './page-grounding';

const page = new PageGrounding({
  url: 'https://shop.example/b/1',
  text: 'Title: Bree Tanner. By [Stephenie Meyer](https://shop.example/a/sm).',
  title: 'Bree Tanner | Shop',
  attributes: [{ name: 'content', value: 'An Eclipse Novella' }],
});

describe('PageGrounding', () => {
  it('reuses the page index for a call that was given the whole page, and indexes an excerpt on its own', () => {
    expect(page.sent(page.page.text, 'page')).toBe(page.pageText);
    const excerpt = page.sent('By Stephenie Meyer', 'excerpt');
    expect(excerpt).not.toBe(page.pageText);
    expect(page.sent('By Stephenie Meyer', 'excerpt')).toBe(excerpt);
    expect(excerpt.segments[0].in).toBe('excerpt');
    // The attributes count for every call: the excerpt index has them too.
    expect(excerpt.segments.some((s) => s.in === 'attribute')).toBe(true);
  });

  it("judges a learned rule's value on the page: false when any item is not on it", () => {
    expect(page.grounded('Bree Tanner', 'string')).toBe(true);
    expect(page.grounded(['Stephenie Meyer', 'An Eclipse Novella'], 'string')).toBe(true);
    expect(page.grounded(['Stephenie Meyer', 'Someone Else'], 'string')).toBe(false);
    expect(page.grounded('https://shop.example/a/sm', 'url')).toBe(true);
  });

  it('has no verdict for empty values', () => {
    expect(page.grounded(null, 'string')).toBeNull();
    expect(page.grounded([], 'string')).toBeNull();
    expect(page.grounded('  ', 'string')).toBeNull();
  });
});
