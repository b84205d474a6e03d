import { LIST_LAYOUTS, LIST_SCHEMA, listPage, product, products, type ListLayout } from '../../../test/fixtures/long-lists';
import { parsePage } from './dom';
import { learnProgram, type LearningSample } from './learner';
import { runProgram } from './program';
import { LearnedSession } from './session';
import { disagreeingFields, planFields, valuesAgree } from './values';

/**
 * Learned lists of hundreds of items (docs/long-lists.md "Learned lists"): a program learned from three catalogue
 * pages reads every item of a longer page of the template, in order, with no model call and no output cap.
 */
const SCHEMA = {
  type: 'object' as const,
  properties: {
    title: { type: 'string' as const },
    names: { type: 'array' as const, items: { type: 'string' as const } },
    skus: { type: 'array' as const, items: { type: 'string' as const } },
  },
};
const fields = planFields(SCHEMA).fields;

function truth(count: number) {
  const list = products(count);
  return { title: `Catalogue of ${count} products`, names: list.map((p) => p.name), skus: list.map((p) => p.sku) };
}

const sample = (layout: (typeof LIST_LAYOUTS)[number], count: number): LearningSample => ({
  page: parsePage(`http://lists.test/${layout}/${count}`, listPage(layout, count)),
  output: truth(count),
});

describe.each(LIST_LAYOUTS.filter((l) => l !== 'table'))('a learned program on %s catalogues of hundreds of items', (layout) => {
  it('learns from pages of 150, 300 and 450 items and reads all 1,000 of a longer page in order', () => {
    const learned = learnProgram(
      fields,
      [150, 300, 450].map((n) => sample(layout, n)),
    );
    expect(learned.failures).toEqual([]);
    const page = sample(layout, 1000);
    const out = runProgram(learned.program!, page.page, fields) as ReturnType<typeof truth>;
    expect(out.skus).toHaveLength(1000);
    expect(disagreeingFields(fields, out, page.output)).toEqual([]);
  });
});

describe('a learned program on a table catalogue', () => {
  // Known limit: the columns of a table whose cells carry no class or label have no candidate rule (the learner
  // proposes no column-position selectors), so such a list stays the model's (chunked: docs/long-lists.md).
  it('learns no rule for the columns of an unlabelled table: the lists stay with the model', () => {
    const learned = learnProgram(
      fields,
      [150, 300, 450].map((n) => sample('table', n)),
    );
    expect(learned.failures.map((f) => f.field).sort()).toEqual(['names', 'skus']);
  });
});

/**
 * Lists of objects (docs/long-lists.md "Learned lists"): the item's element and a rule per property inside it, so
 * every item keeps its own values (an item without a price gets null, not the next item's).
 */
const OBJECTS = planFields(LIST_SCHEMA).fields;

function catalogue(count: number) {
  return { title: `Catalogue of ${count} products`, products: products(count).map((p) => ({ name: p.name, sku: p.sku, price: p.price })) };
}

const objectSample = (layout: ListLayout, count: number): LearningSample => ({
  page: parsePage(`http://lists.test/${layout}/${count}`, listPage(layout, count)),
  output: catalogue(count),
});

describe('planFields on a list of objects', () => {
  it('plans a list whose items have scalar properties, and says why one with an object inside is not', () => {
    expect(OBJECTS.find((f) => f.name === 'products')).toEqual({
      name: 'products',
      kind: 'string',
      list: true,
      nullable: false,
      required: false,
      items: [
        { name: 'name', kind: 'string', list: false, nullable: false, required: true },
        { name: 'sku', kind: 'string', list: false, nullable: true, required: false },
        { name: 'price', kind: 'number', list: false, nullable: true, required: false },
      ],
    });
    const nested = planFields({
      type: 'object',
      properties: {
        a: { type: 'array', items: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } } },
        b: { type: 'array', items: { type: 'object', properties: { offer: { type: 'object', properties: {} } } } },
        c: { type: 'array', items: { type: 'object', properties: {} } },
      },
    });
    // A list inside an item is learnable (learner-nested-lists.spec.ts); an object inside one is not.
    expect(nested.fields.map((f) => f.name)).toEqual(['a']);
    expect(nested.unsupported).toEqual([
      { field: 'b', reason: 'list items of objects with offer: type object' },
      { field: 'c', reason: 'list items of objects with no properties' },
    ]);
  });
});

describe.each(LIST_LAYOUTS)('a learned program on %s catalogues as a list of objects', (layout) => {
  it('learns from pages of 150, 300 and 450 items and reads all 1,000 items of a longer page, each with its own values', () => {
    const learned = learnProgram(
      OBJECTS,
      [150, 300, 450].map((n) => objectSample(layout, n)),
    );
    expect(learned.failures).toEqual([]);
    const rule = learned.program!.rules.find((r) => r.field === 'products')!;
    expect(rule.items!.map((r) => r.field)).toEqual(['name', 'sku', 'price']);
    const page = objectSample(layout, 1000);
    const out = runProgram(learned.program!, page.page, OBJECTS) as ReturnType<typeof catalogue>;
    expect(out.products).toHaveLength(1000);
    expect(out.products[999]).toEqual(product(999));
    expect(disagreeingFields(OBJECTS, out, page.output)).toEqual([]);
  });
});

describe('a learned list of objects whose items lack a property now and then', () => {
  // Cards where every seventh product shows no price: a column read page-wide would shift the prices up an item.
  const page = (count: number) =>
    `<html><body><h1>Catalogue of ${count} products</h1><ul class="grid">${products(count)
      .map(
        (p, n) =>
          `<li class="card"><h3>${p.name}</h3><p class="sku">${p.sku}</p>${n % 7 === 3 ? '' : `<p class="price">$${p.price.toFixed(2)}</p>`}</li>`,
      )
      .join('')}</ul><p>Total: ${count} products.</p></body></html>`;
  const truthOf = (count: number) => ({
    title: `Catalogue of ${count} products`,
    products: products(count).map((p, n) => ({ name: p.name, sku: p.sku, price: n % 7 === 3 ? null : p.price })),
  });
  const at = (count: number): LearningSample => ({ page: parsePage(`http://gaps.test/${count}`, page(count)), output: truthOf(count) });

  it('gives the item without a price null, and every later item its own price', () => {
    const learned = learnProgram(OBJECTS, [40, 80, 120].map(at));
    expect(learned.failures).toEqual([]);
    const longer = at(700);
    const out = runProgram(learned.program!, longer.page, OBJECTS) as ReturnType<typeof truthOf>;
    expect(out.products).toHaveLength(700);
    expect(out.products.slice(2, 5)).toEqual(truthOf(700).products.slice(2, 5));
    expect(out.products[3].price).toBeNull();
    expect(disagreeingFields(OBJECTS, out, longer.output)).toEqual([]);
  });

  it('tells a program that drops or shifts items from the model: valuesAgree compares every item', () => {
    const items = truthOf(50).products;
    const [products] = OBJECTS.filter((f) => f.name === 'products');
    const shifted = items.map((p, n, all) => ({ ...p, price: all[n + 1]?.price ?? null }));
    expect(valuesAgree(products, items, items)).toBe(true);
    expect(valuesAgree(products, items.slice(0, 49), items)).toBe(false);
    expect(valuesAgree(products, shifted, items)).toBe(false);
  });
});

describe('a learned session on a catalogue of a list of objects', () => {
  it('learns and verifies the list on the model pages, then reads pages of hundreds of items with no model call', async () => {
    const calls: string[] = [];
    const session = new LearnedSession(LIST_SCHEMA, async (request) => {
      calls.push(request.url);
      return catalogue(Number(new URL(request.url).pathname.split('/').pop()));
    });
    expect(session.learnable).toBe(true);
    const counts = [120, 180, 240, 90, 150, 210, 270, 330, 400, 650, 999];
    const results = [];
    for (const count of counts) results.push(await session.extract(`http://lists.test/cards/${count}`, listPage('cards', count)));
    expect(results.map((r) => r.role)).toEqual([
      ...Array(3).fill('learning'),
      ...Array(5).fill('verification'),
      ...Array(3).fill('program'),
    ]);
    expect(calls).toHaveLength(8);
    for (const [n, r] of results.entries()) expect(disagreeingFields(OBJECTS, r.data, catalogue(counts[n]))).toEqual([]);
    const last = results.at(-1)!;
    expect(last).toMatchObject({ method: 'selectors', modelCalls: 0 });
    expect((last.data as ReturnType<typeof catalogue>).products).toHaveLength(999);
    expect(last.rules!.products.items!.map((r) => r.field)).toEqual(['name', 'sku', 'price']);
  });
});
