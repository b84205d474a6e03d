import { diffRecords, normaliseScalar } from './diff';

describe('normalisation', () => {
  it('makes formatting noise equal and real changes different', () => {
    expect(normaliseScalar('  Blue\n  shirt ')).toBe('Blue shirt');
    expect(normaliseScalar('ﬁne')).toBe('fine'); // NFKC
    expect(normaliseScalar('1,299.00')).toBe(1299);
    expect(normaliseScalar('1 299.5')).toBe(1299.5);
    expect(normaliseScalar('12.50')).toBe(12.5);
    expect(normaliseScalar(12.5)).toBe(12.5);
    expect(normaliseScalar('')).toBeNull();
    expect(normaliseScalar(undefined)).toBeNull();
    expect(normaliseScalar('12,5')).toBe('12,5'); // not a digit group: stays text
    expect(normaliseScalar(true)).toBe(true);
  });
});

describe('diffRecords', () => {
  it('reports changed fields with their paths, and nothing for noise', () => {
    expect(diffRecords({ name: 'Shirt', price: '12.50' }, { name: ' Shirt ', price: 12.5 })).toEqual([]);
    expect(diffRecords({ name: 'Shirt', price: 12.5, offer: { stock: 3 } }, { name: 'Shirt', price: 11, offer: { stock: 0 } })).toEqual([
      { path: 'offer.stock', before: 3, after: 0 },
      { path: 'price', before: 12.5, after: 11 },
    ]);
    expect(diffRecords({ a: null }, { a: 'x' })).toEqual([{ path: 'a', before: null, after: 'x' }]);
    expect(diffRecords({ a: 'x' }, {})).toEqual([{ path: 'a', before: 'x', after: null }]);
  });

  it('compares lists of scalars as sets', () => {
    expect(diffRecords({ tags: ['a', 'b'] }, { tags: ['b', 'a', 'a'] })).toEqual([]);
    expect(diffRecords({ tags: ['a', 'b'] }, { tags: ['a', 'c'] })).toEqual([{ path: 'tags', before: ['a', 'b'], after: ['a', 'c'] }]);
  });

  it('matches lists of objects by key when one is given, else by position', () => {
    const before = {
      variants: [
        { sku: 'A', stock: 1 },
        { sku: 'B', stock: 2 },
      ],
    };
    const after = {
      variants: [
        { sku: 'B', stock: 2 },
        { sku: 'A', stock: 0 },
      ],
    };
    expect(diffRecords(before, after, { variants: ['sku'] })).toEqual([{ path: 'variants[sku=A].stock', before: 1, after: 0 }]);
    expect(diffRecords(before, after).map((c) => c.path)).toEqual([
      'variants[0].sku',
      'variants[0].stock',
      'variants[1].sku',
      'variants[1].stock',
    ]);
  });
});
