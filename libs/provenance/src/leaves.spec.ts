import type { JsonSchemaObject } from '@app/schema';
import { formatPath, leavesOf } from './leaves';

const SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    title: { type: ['string', 'null'] },
    price: { type: ['number', 'null'] },
    pages: { type: ['integer', 'null'] },
    published: { type: ['string', 'null'], format: 'date' },
    updated: { type: ['string', 'null'], format: 'date-time' },
    link: { type: ['string', 'null'], format: 'uri' },
    in_stock: { type: ['boolean', 'null'] },
    condition: { type: ['string', 'null'], enum: ['new', 'used', null] },
    authors: { type: ['array', 'null'], items: { type: 'string' } },
    variants: {
      type: 'array',
      items: { type: 'object', properties: { sku: { type: 'string' }, 'size.eu': { type: 'number' } } },
    },
    either: { anyOf: [{ type: 'number' }, { type: 'string', format: 'date' }] },
  },
};

describe('leavesOf', () => {
  it('lists every leaf in schema order with its path, top-level field and kind', () => {
    const data = {
      title: 'Bree',
      price: 12.5,
      pages: 192,
      published: '2010-06-05',
      updated: '2010-06-05T10:00:00.000Z',
      link: 'https://shop.example/b',
      in_stock: true,
      condition: 'new',
      authors: ['Stephenie Meyer', 'Other'],
      variants: [{ sku: 'A1', 'size.eu': 42 }],
      either: '2024-01-02',
    };
    const { leaves, omitted } = leavesOf(data, SCHEMA, 100);
    expect(omitted).toBe(0);
    expect(leaves.map((l) => [l.path, l.field, l.kind])).toEqual([
      ['title', 'title', 'string'],
      ['price', 'price', 'number'],
      ['pages', 'pages', 'integer'],
      ['published', 'published', 'date'],
      ['updated', 'updated', 'date-time'],
      ['link', 'link', 'url'],
      ['in_stock', 'in_stock', 'unchecked'],
      ['condition', 'condition', 'unchecked'],
      ['authors[0]', 'authors', 'string'],
      ['authors[1]', 'authors', 'string'],
      ['variants[0].sku', 'variants', 'string'],
      ['variants[0]["size.eu"]', 'variants', 'number'],
      ['either', 'either', 'date'],
    ]);
  });

  it('lists a null, missing or empty value as one leaf (the reason for a null goes there)', () => {
    const { leaves } = leavesOf({ title: null, authors: [], variants: [] }, SCHEMA, 100);
    expect(leaves.map((l) => [l.path, l.value])).toEqual([
      ['title', null],
      ['price', undefined],
      ['pages', undefined],
      ['published', undefined],
      ['updated', undefined],
      ['link', undefined],
      ['in_stock', undefined],
      ['condition', undefined],
      ['authors', []],
      ['variants', []],
      ['either', undefined],
    ]);
  });

  it('stops listing at the limit and counts the rest', () => {
    const many = { authors: Array.from({ length: 50 }, (_, i) => `a${i}`) };
    const { leaves, omitted } = leavesOf(many, { type: 'object', properties: { authors: SCHEMA.properties!.authors } }, 10);
    expect(leaves).toHaveLength(10);
    expect(omitted).toBe(40);
  });

  it('keeps a reference to where each leaf sits, so a policy can replace it', () => {
    const data = { authors: ['x', 'y'] };
    const { leaves } = leavesOf(data, SCHEMA, 100);
    const second = leaves.find((l) => l.path === 'authors[1]')!;
    (second.parent as unknown[])[second.key as number] = null;
    expect(data.authors).toEqual(['x', null]);
  });

  it('writes a path of names and indices as leaf paths are written', () => {
    expect(formatPath(['offers', 1, 'price'])).toBe('offers[1].price');
    expect(formatPath(['a.b', 0])).toBe('["a.b"][0]');
    expect(formatPath([])).toBe('');
    const data = { 'a.b': [{ sku: 'x' }] };
    const schema: JsonSchemaObject = {
      type: 'object',
      properties: { 'a.b': { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } } },
    };
    expect(leavesOf(data, schema, 10).leaves.map((l) => l.path)).toEqual([formatPath(['a.b', 0, 'sku'])]);
  });

  it('walks deep nesting without recursion', () => {
    let schema: JsonSchemaObject = { type: 'string' };
    let data: unknown = 'deep';
    for (let i = 0; i < 2_000; i++) {
      schema = { type: 'object', properties: { n: schema } };
      data = { n: data };
    }
    const { leaves } = leavesOf(data, schema, 10);
    expect(leaves).toHaveLength(1);
    expect(leaves[0].value).toBe('deep');
    expect(leaves[0].path.split('.')).toHaveLength(2_000);
  });
});
