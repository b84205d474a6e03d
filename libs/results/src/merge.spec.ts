import { canonicalJson, expandPageData, itemHash, itemUrl, mergeItemsOf, richness } from './merge';

describe('merge rules', () => {
  it('expands page data', () => {
    expect(expandPageData([1, { a: 1 }])).toEqual([1, { a: 1 }]);
    expect(expandPageData({ products: [{ a: 1 }, { a: 2 }], page: 3 })).toEqual([{ a: 1 }, { a: 2 }]);
    expect(expandPageData({ title: 't', tags: ['x'] })).toEqual([{ title: 't', tags: ['x'] }]);
    expect(expandPageData({ a: [{ x: 1 }], b: [{ y: 1 }] })).toEqual([{ a: [{ x: 1 }], b: [{ y: 1 }] }]);
    expect(expandPageData({ products: [] })).toEqual([]);
    expect(expandPageData({ products: [], title: 't' })).toEqual([{ products: [], title: 't' }]);
    expect(expandPageData({ title: 't' })).toEqual([{ title: 't' }]);
    expect(expandPageData(null)).toEqual([]);
    expect(expandPageData('text')).toEqual(['text']);
  });

  it('takes a page stored as formats as one item with its URL, never its links as items', () => {
    const links = [{ url: 'https://a.example/x', text: 'x' }];
    expect(mergeItemsOf({ url: 'https://a.example/', data: { links }, metadata: { method: 'scrape' } })).toEqual([
      { url: 'https://a.example/', links },
    ]);
    // The same data extracted by a schema is a wrapper of items.
    expect(mergeItemsOf({ url: 'https://a.example/', data: { links }, metadata: { method: 'model' } })).toEqual(links);
    expect(mergeItemsOf({ url: 'https://a.example/', data: null, metadata: { method: 'scrape' } })).toEqual([]);
  });

  it('hashes canonical JSON, so key order does not matter', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
    expect(itemHash({ a: 1, b: 2 })).toBe(itemHash({ b: 2, a: 1 }));
    expect(itemHash({ a: 1 })).not.toBe(itemHash({ a: '1' }));
  });

  it('reads url and richness', () => {
    expect(itemUrl({ url: 'https://a/' })).toBe('https://a/');
    expect(itemUrl({ url: '' })).toBeNull();
    expect(itemUrl(['https://a/'])).toBeNull();
    expect(richness({ a: 1, b: null, c: 0, d: '' })).toBe(3);
    expect(richness('x')).toBe(0);
  });
});
