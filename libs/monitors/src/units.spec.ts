import { keyPlan, unitsOf, type KeyPlan } from './units';

const schema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    sku: { type: 'string' },
    products: {
      type: 'array',
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, price: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
};

const plan = (key: string[]): KeyPlan => {
  const out = keyPlan(schema, key);
  if (!('plan' in out)) throw new Error(JSON.stringify(out.problems));
  return out.plan;
};

describe('key plans', () => {
  it('keys pages by URL without a key, by top fields, or list items by their fields', () => {
    expect(plan([])).toEqual({ list: null, fields: [] });
    expect(plan(['sku'])).toEqual({ list: null, fields: ['sku'] });
    expect(plan(['products.sku'])).toEqual({ list: 'products', fields: ['sku'] });
  });

  it('refuses key paths outside the schema, at the field', () => {
    expect(keyPlan(schema, ['products.sku', 'colour'])).toEqual({
      problems: [{ location: 'body.key[1]', message: 'is not a field of the schema', value: 'colour' }],
    });
    expect(keyPlan(schema, ['products'])).toMatchObject({ problems: [{ location: 'body.key[0]' }] });
    expect(keyPlan(schema, ['sku', 'products.sku'])).toMatchObject({ problems: [{ location: 'body.key[1]' }] });
    expect(keyPlan(schema, ['products..sku'])).toMatchObject({ problems: [{ location: 'body.key[0]' }] });
  });

  it('cuts a page into units', () => {
    const data = { title: 'Shop', sku: 'P-1', products: [{ sku: 'A', price: 1 }, { sku: ' A ', price: 2 }, { price: 3 }] };
    expect(unitsOf(plan([]), 'http://s/p', data)).toEqual([
      { key: { url: 'http://s/p' }, id: '["url","http://s/p"]', url: 'http://s/p', record: data },
    ]);
    expect(unitsOf(plan(['sku']), 'http://s/p', data)[0].key).toEqual({ sku: 'P-1' });
    const items = unitsOf(plan(['products.sku']), 'http://s/p', data);
    expect(items.map((u) => u.key)).toEqual([{ sku: 'A' }, { sku: ' A ' }, { url: 'http://s/p#2' }]);
    expect(items[0].id).toBe(items[1].id); // same key once normalised
    expect(unitsOf(plan(['products.sku']), 'http://s/p', { title: 'x' })).toEqual([]);
  });
});
