import { product, products } from '../../../test/fixtures/long-lists';
import { parsePage } from './dom';
import { learnProgram, type LearningSample } from './learner';
import { runProgram } from './program';
import { LearnedSession } from './session';
import { planFields, valuesAgree } from './values';

/**
 * Lists nested in the items of a learned list of objects (docs/long-lists.md "Learned lists"): a product's tags (a
 * list of scalars) and its variants (a list of objects), each read inside its own item, compared item by item.
 */
function schema(nullableTags = false) {
  return {
    type: 'object' as const,
    properties: {
      products: {
        type: 'array' as const,
        items: {
          type: 'object' as const,
          properties: {
            name: { type: 'string' as const },
            sku: { type: 'string' as const },
            tags: nullableTags
              ? { type: ['array' as const, 'null' as const], items: { type: 'string' as const } }
              : { type: 'array' as const, items: { type: 'string' as const } },
            variants: {
              type: 'array' as const,
              items: { type: 'object' as const, properties: { name: { type: 'string' as const }, price: { type: 'number' as const } } },
            },
          },
          required: ['name'],
        },
      },
    },
  };
}
const FIELDS = planFields(schema()).fields;
const SIZES = ['Small', 'Medium', 'Large', 'Huge'];

/** Product n: 0 to 3 tags and 0 to 2 variants (both lists empty on every twelfth product). */
function truthItem(n: number) {
  const p = product(n);
  return {
    name: p.name,
    sku: p.sku,
    tags: Array.from({ length: n % 4 }, (_, k) => `tag-${(n * 7 + k * 3) % 11}`),
    variants: Array.from({ length: n % 3 }, (_, k) => ({ name: SIZES[(n + k) % SIZES.length], price: p.price + k + 1 })),
  };
}

/** A catalogue page; `bare(n)`: product n has no tags element at all (not an empty one). */
function page(count: number, bare: (n: number) => boolean = () => false): string {
  const cards = products(count).map((_p, n) => {
    const t = truthItem(n);
    const tags = bare(n) ? '' : `<ul class="tags">${t.tags.map((tag) => `<li>${tag}</li>`).join('')}</ul>`;
    const variants = t.variants.map((v) => `<tr><td class="size">${v.name}</td><td class="price">$${v.price.toFixed(2)}</td></tr>`);
    return `<li class="card"><h3>${t.name}</h3><p class="sku">${t.sku}</p>${tags}<table class="variants">${variants.join('')}</table></li>`;
  });
  return `<html><body><h1>Catalogue of ${count} products</h1><ul class="grid">${cards.join('')}</ul><p>Total: ${count}.</p></body></html>`;
}

const sample = (count: number): LearningSample => ({
  page: parsePage(`http://nested.test/${count}`, page(count)),
  output: { products: Array.from({ length: count }, (_, n) => truthItem(n)) },
});

describe('planFields on lists nested in the items of a list', () => {
  it('plans a list of scalars and a list of objects inside an item, and refuses a list one level deeper', () => {
    const products = FIELDS.find((f) => f.name === 'products')!;
    expect(products.items!.map((p) => [p.name, p.list, p.items?.map((i) => i.name)])).toEqual([
      ['name', false, undefined],
      ['sku', false, undefined],
      ['tags', true, undefined],
      ['variants', true, ['name', 'price']],
    ]);
    const deep = planFields({
      type: 'object',
      properties: {
        a: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              v: { type: 'array', items: { type: 'object', properties: { t: { type: 'array', items: { type: 'string' } } } } },
            },
          },
        },
      },
    });
    expect(deep.unsupported).toEqual([{ field: 'a', reason: 'list items of objects with v: a list inside a list inside an item' }]);
  });

  it('compares a nested list element by element', () => {
    const [products] = FIELDS;
    const items = [truthItem(5), truthItem(6)];
    expect(valuesAgree(products, items, structuredClone(items))).toBe(true);
    expect(valuesAgree(products, [{ ...items[0], tags: items[0].tags.slice(1) }, items[1]], items)).toBe(false);
    expect(valuesAgree(products, [{ ...items[0], variants: [{ ...items[0].variants[0], price: 0 }] }, items[1]], items)).toBe(false);
  });
});

describe('a learned list of objects with lists nested in its items', () => {
  const learned = learnProgram(
    FIELDS,
    [30, 45, 60].map((n) => sample(n)),
  );

  it('learns a rule per nested list, relative to the item, from pages of 30, 45 and 60 items', () => {
    expect(learned.failures).toEqual([]);
    const rule = learned.program!.rules[0];
    expect(rule.items!.map((r) => r.field)).toEqual(['name', 'sku', 'tags', 'variants']);
    expect(rule.items![3].items!.map((r) => r.field)).toEqual(['name', 'price']);
  });

  it('reads every value of a 1,000-item page, nested lists of 0 to 3 entries included', () => {
    const out = runProgram(learned.program!, parsePage('http://nested.test/1000', page(1000)), FIELDS) as {
      products: Array<ReturnType<typeof truthItem>>;
    };
    expect(out.products).toHaveLength(1000);
    // Exact values, not only agreement: empty nested lists are [] and every item keeps its own entries.
    expect(out.products).toEqual(Array.from({ length: 1000 }, (_, n) => truthItem(n)));
  });

  it('gives an item without the nested list [] or, when its schema allows null, null', () => {
    const lacking = parsePage(
      'http://nested.test/bare',
      page(20, (n) => n === 5),
    );
    const out = runProgram(learned.program!, lacking, FIELDS) as { products: Array<ReturnType<typeof truthItem>> };
    expect(out.products[5].tags).toEqual([]);
    expect(out.products[6]).toEqual(truthItem(6));
    const nullable = planFields(schema(true)).fields;
    const rules = learnProgram(
      nullable,
      [30, 45, 60].map((n) => sample(n)),
    );
    expect(rules.failures).toEqual([]);
    const read = runProgram(rules.program!, lacking, nullable) as { products: Array<Record<string, unknown>> };
    expect(read.products[5].tags).toBeNull();
    expect(read.products[5].variants).toEqual(truthItem(5).variants);
  });
});

describe('a nested list no rule reproduces', () => {
  it('leaves the whole list to the model (a failure, never a wrong program)', () => {
    // The tags are one text the model split in its own way: no element shows one tag, no separator splits them.
    const odd = (count: number): LearningSample => {
      const html = page(count).replace(
        /<ul class="tags">(.*?)<\/ul>/g,
        (_m, inner: string) => `<p class="tags">${inner.replace(/<\/?li>/g, '')}</p>`,
      );
      return { page: parsePage(`http://odd.test/${count}`, html), output: sample(count).output };
    };
    const learned = learnProgram(FIELDS, [30, 45, 60].map(odd));
    expect(learned.program).toBeUndefined();
    expect(learned.failures.map((f) => f.field)).toEqual(['products']);
    expect(learned.failures[0].reason).toMatch(/^tags of its items: /);
  });
});

describe('a learned session on a catalogue with nested lists', () => {
  it('learns and verifies on the model pages, then reads a 1,000-item page with no model call', async () => {
    let calls = 0;
    const session = new LearnedSession(schema(), async (request) => {
      calls++;
      return sample(Number(new URL(request.url).pathname.slice(1))).output;
    });
    expect(session.learnable).toBe(true);
    const counts = [30, 45, 60, 20, 25, 35, 40, 50, 70, 1000];
    const results = [];
    for (const count of counts) results.push(await session.extract(`http://nested.test/${count}`, page(count)));
    expect(results.map((r) => r.role)).toEqual([...Array(3).fill('learning'), ...Array(5).fill('verification'), 'program', 'program']);
    expect(calls).toBe(8);
    expect(results.at(-1)).toMatchObject({ method: 'selectors', modelCalls: 0 });
    expect(results.at(-1)!.data).toEqual(sample(1000).output);
  });
});
