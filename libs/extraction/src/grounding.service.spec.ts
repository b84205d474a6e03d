import type { FieldRule } from '@app/learned';
import { Metrics } from '@app/observability';
import { GroundingService, selectorView } from './grounding.service';

const SCHEMA = {
  type: 'object' as const,
  properties: {
    title: { type: ['string', 'null'] as Array<'string' | 'null'> },
    price: { type: ['number', 'null'] as Array<'number' | 'null'> },
    author: { type: ['string', 'null'] as Array<'string' | 'null'> },
  },
};
const MARKDOWN = '# Bree Tanner\n\nBy Stephenie Meyer — $12.99';
const CONTENT = { markdown: MARKDOWN, metadata: { title: 'Bree', openGraph: {}, jsonLd: [] }, links: [], stats: {} } as never;
const AUTHOR_RULE: FieldRule = {
  field: 'author',
  selector: 'div.by > a',
  pick: 'first',
  parentLabel: 'By:',
  source: { kind: 'text' },
  steps: [],
  parse: 'string',
};

describe('GroundingService', () => {
  let metrics: Metrics;
  let service: GroundingService;
  beforeEach(() => {
    metrics = new Metrics('test');
    service = new GroundingService(metrics);
  });
  const call = { provider: 'openai', model: 'gpt-4o-mini', content: MARKDOWN, excerpt: false };

  it('grounds a model answer on what the model was given and counts its values by model and outcome', async () => {
    const page = service.pageOf('https://shop.example/b', CONTENT);
    const out = service.ground({
      page,
      data: { title: 'Bree Tanner', price: 13.99, author: null },
      schema: SCHEMA,
      settings: { provenance: 'summary', grounding: 'report' },
      call,
    });
    expect(out.metadata).toEqual({
      fields: {
        title: { source: 'model', grounded: true },
        price: { source: 'model', grounded: false },
        author: { source: 'model', grounded: null },
      },
      ungrounded_fields: 1,
    });
    expect(out.failure).toBeUndefined();
    const text = await metrics.render();
    expect(text).toContain('gleaner_field_grounding_total{provider="openai",model="gpt-4o-mini",outcome="grounded",role="test"} 1');
    expect(text).toContain('gleaner_field_grounding_total{provider="openai",model="gpt-4o-mini",outcome="ungrounded",role="test"} 1');
    // An outcome with nothing yet is a series at 0 (a dashboard shows "none", not "no data").
    expect(text).toContain('gleaner_field_grounding_total{provider="openai",model="gpt-4o-mini",outcome="unchecked",role="test"} 0');
  });

  it("gives a null that coercion made its reason and the model's value (full)", () => {
    const page = service.pageOf('https://shop.example/b', CONTENT);
    const out = service.ground({
      page,
      data: { title: 'Bree Tanner', price: null, author: null },
      schema: SCHEMA,
      settings: { provenance: 'full', grounding: 'report' },
      call: { ...call, nulled: [{ path: ['price'], value: 'Call for price' }] },
    });
    expect(out.metadata.fields!.price).toEqual({ source: 'model', grounded: null, reason: 'coerce_failed', value: 'Call for price' });
    expect(out.metadata.fields!.author).toEqual({ source: 'model', grounded: null, reason: 'model_null' });
  });

  it("says which values a learned rule filled, with the rule, and does not count them as the model's", async () => {
    const page = service.pageOf('https://shop.example/b', CONTENT);
    const out = service.ground({
      page,
      data: { title: 'Bree Tanner', price: 12.99, author: 'Stephenie Meyer' },
      schema: SCHEMA,
      settings: { provenance: 'full', grounding: 'report' },
      rules: { author: AUTHOR_RULE },
    });
    expect(out.metadata.fields!.author).toMatchObject({
      source: 'selectors',
      selector: { css: 'div.by > a', read: 'text', parent_label: 'By:' },
      grounded: true,
      evidence: { in: 'page' },
    });
    expect(await metrics.render()).not.toContain('gleaner_field_grounding_total{');
  });

  it('fails the page with ungrounded_output under fail_page, naming the values', () => {
    const page = service.pageOf('https://shop.example/b', CONTENT);
    const out = service.ground({
      page,
      data: { title: 'Midnight Sun', price: 13.99, author: null },
      schema: SCHEMA,
      settings: { provenance: 'off', grounding: 'fail_page' },
      call,
    });
    expect(out.failure).toMatchObject({ category: 'ungrounded_output', slug: 'upstream-failure' });
    expect(out.failure!.detail).toBe('2 values are not on the page (grounding: fail_page): title, price.');
    expect(out.metadata).toEqual({ ungrounded_fields: 2 });
  });

  it('grounds an excerpt call on the excerpt it was given', () => {
    const page = service.pageOf('https://shop.example/b', CONTENT);
    const out = service.ground({
      page,
      data: { title: null, price: null, author: 'Stephenie Meyer' },
      schema: SCHEMA,
      settings: { provenance: 'full', grounding: 'report' },
      call: { ...call, content: 'By Stephenie Meyer', excerpt: true },
    });
    expect(out.metadata.fields!.author).toMatchObject({ grounded: true, evidence: { in: 'excerpt', start: 3, end: 18 } });
  });

  it("guards a learned list of objects by its items' values, each by its property's kind", () => {
    const page = service.pageOf('https://shop.example/b', CONTENT);
    const guard = service.learnedGuard(page);
    const items = {
      name: 'books',
      kind: 'string' as const,
      list: true,
      nullable: false,
      required: false,
      items: [
        { name: 'title', kind: 'string' as const, list: false, nullable: true, required: false },
        { name: 'price', kind: 'number' as const, list: false, nullable: true, required: false },
      ],
    };
    expect(guard(items, [{ title: 'Bree Tanner', price: 12.99 }])).toBe(true);
    expect(
      guard(items, [
        { title: 'Bree Tanner', price: 12.99 },
        { title: 'Eclipse', price: null },
      ]),
    ).toBe(false);
    expect(guard(items, [{ title: 'Bree Tanner', price: 99.5 }])).toBe(false);
    expect(guard(items, [])).toBeNull();
  });

  it('guards the lists nested in the items of a learned list: their values, and their sub-items by property', () => {
    const page = service.pageOf('https://shop.example/b', CONTENT);
    const guard = service.learnedGuard(page);
    const scalar = (name: string, kind: 'string' | 'number', list = false) => ({ name, kind, list, nullable: true, required: false });
    const books = {
      ...scalar('books', 'string', true),
      items: [
        scalar('title', 'string'),
        scalar('tags', 'string', true),
        { ...scalar('offers', 'string', true), items: [scalar('price', 'number')] },
      ],
    };
    const book = { title: 'Bree Tanner', tags: ['Stephenie Meyer'], offers: [{ price: 12.99 }] };
    expect(guard(books, [book])).toBe(true);
    expect(guard(books, [{ ...book, tags: ['Stephenie Meyer', 'Eclipse'] }])).toBe(false);
    expect(guard(books, [{ ...book, offers: [{ price: 12.99 }, { price: 99.5 }] }])).toBe(false);
    expect(guard(books, [{ ...book, tags: [], offers: [] }])).toBe(true);
  });

  it('shows each kind of rule source', () => {
    expect(selectorView({ ...AUTHOR_RULE, source: { kind: 'attr', name: 'content' }, parentLabel: undefined })).toEqual({
      css: 'div.by > a',
      read: 'attribute',
      attribute: 'content',
    });
    expect(selectorView({ ...AUTHOR_RULE, source: { kind: 'after-label', label: 'ISBN:' } })).toMatchObject({
      read: 'after-label',
      label: 'ISBN:',
    });
    expect(selectorView({ ...AUTHOR_RULE, source: { kind: 'own-text' } })).toMatchObject({ read: 'own-text' });
  });
});
