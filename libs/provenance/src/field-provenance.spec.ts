import type { JsonSchemaObject } from '@app/schema';
import { groundData, type FieldOrigin } from './field-provenance';
import { GroundingIndex } from './grounding-index';
import { GROUNDING_LIMITS } from './grounding-limits';
import type { GroundingPolicy, ProvenanceMode } from './provenance-options';

const PAGE = '# Bree Tanner\n\nBy Stephenie Meyer. Price: $12.99. Tags: vampires, novella';
const SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    title: { type: ['string', 'null'] },
    author: { type: ['string', 'null'] },
    price: { type: ['number', 'null'] },
    in_stock: { type: ['boolean', 'null'] },
    tags: { type: ['array', 'null'], items: { type: 'string' } },
    isbn: { type: ['string', 'null'] },
  },
};
const DATA = {
  title: 'Bree Tanner',
  author: 'Stephenie Meyer',
  price: 13.99,
  in_stock: true,
  tags: ['vampires', 'werewolves'],
  isbn: null,
};

const index = () => new GroundingIndex({ text: { in: 'page', text: PAGE } });
const run = (provenance: ProvenanceMode, grounding: GroundingPolicy, origin?: (field: string) => FieldOrigin) => {
  const page = index();
  return groundData({
    data: DATA,
    schema: SCHEMA,
    origin: origin ?? (() => ({ source: 'model', index: page })),
    settings: { provenance, grounding },
  });
};

describe('groundData', () => {
  it('summary: source and grounded for every leaf, nothing else', () => {
    const out = run('summary', 'report');
    expect(out.fields).toEqual({
      title: { source: 'model', grounded: true },
      author: { source: 'model', grounded: true },
      price: { source: 'model', grounded: false },
      in_stock: { source: 'model', grounded: null },
      'tags[0]': { source: 'model', grounded: true },
      'tags[1]': { source: 'model', grounded: false },
      isbn: { source: 'model', grounded: null },
    });
    expect(out.ungrounded).toEqual(['price', 'tags[1]']);
    expect(out.bySource.model).toEqual({ grounded: 3, ungrounded: 2, unchecked: 1, empty: 1 });
    expect(out.data).toBe(DATA);
    expect(out.failed).toBe(false);
  });

  it('full: evidence, reasons for nulls and unchecked values', () => {
    const out = run('full', 'report');
    expect(out.fields!.title).toMatchObject({ grounded: true, evidence: { in: 'page', start: 2, end: 13 } });
    expect(out.fields!.in_stock).toEqual({ source: 'model', grounded: null, reason: 'not_checkable' });
    expect(out.fields!.isbn).toEqual({ source: 'model', grounded: null, reason: 'model_null' });
    expect(out.fields!.price).toEqual({ source: 'model', grounded: false });
  });

  it('off: no fields, but the counts and the policy still apply', () => {
    const out = run('off', 'null_ungrounded');
    expect(out.fields).toBeUndefined();
    expect(out.ungrounded).toEqual(['price', 'tags[1]']);
    expect(out.data).toEqual({ ...DATA, price: null, tags: ['vampires', null] });
  });

  it('null_ungrounded replaces ungrounded values by null on a copy, and full mode says which value it replaced', () => {
    const out = run('full', 'null_ungrounded');
    expect(out.data).toEqual({ ...DATA, price: null, tags: ['vampires', null] });
    expect(DATA.price).toBe(13.99);
    expect(out.fields!.price).toEqual({ source: 'model', grounded: false, reason: 'ungrounded', value: 13.99 });
    expect(out.fields!['tags[1]']).toMatchObject({ reason: 'ungrounded', value: 'werewolves' });
  });

  it('fail_page fails the page when a value is ungrounded, and only then', () => {
    expect(run('summary', 'fail_page').failed).toBe(true);
    const page = index();
    const grounded = groundData({
      data: { title: 'Bree Tanner' },
      schema: SCHEMA,
      origin: () => ({ source: 'model', index: page }),
      settings: { provenance: 'summary', grounding: 'fail_page' },
    });
    expect(grounded.failed).toBe(false);
  });

  it('says which values a learned rule read, with its selector, and why its empty values are null', () => {
    const page = index();
    const selector = { css: 'h1', read: 'text' as const };
    const out = run('full', 'report', (field) =>
      field === 'title' || field === 'isbn' ? { source: 'selectors', index: page, selector } : { source: 'model', index: page },
    );
    expect(out.fields!.title).toMatchObject({ source: 'selectors', selector, grounded: true });
    expect(out.fields!.isbn).toEqual({ source: 'selectors', selector, grounded: null, reason: 'not_on_page' });
    expect(out.bySource.selectors).toEqual({ grounded: 1, ungrounded: 0, unchecked: 0, empty: 1 });
  });

  it('reads an empty string or list from the model as model_empty', () => {
    const page = index();
    const out = groundData({
      data: { title: ' ', tags: [] },
      schema: SCHEMA,
      origin: () => ({ source: 'model', index: page }),
      settings: { provenance: 'full', grounding: 'report' },
    });
    expect(out.fields!.title.reason).toBe('model_empty');
    expect(out.fields!.tags.reason).toBe('model_empty');
  });

  it("says which nulls coercion made: coerce_failed with the model's value, model_empty for an empty text", () => {
    const page = index();
    const nulled = new Map<string, unknown>([
      ['price', 'Call for price'],
      ['isbn', ''],
      ['in_stock', 'x'.repeat(300)],
    ]);
    const fullOut = groundData({
      data: { title: null, price: null, isbn: null, in_stock: null },
      schema: SCHEMA,
      origin: () => ({ source: 'model', index: page }),
      settings: { provenance: 'full', grounding: 'report' },
      nulled,
    });
    expect(fullOut.fields!.title).toEqual({ source: 'model', grounded: null, reason: 'model_null' });
    expect(fullOut.fields!.price).toEqual({ source: 'model', grounded: null, reason: 'coerce_failed', value: 'Call for price' });
    expect(fullOut.fields!.isbn).toEqual({ source: 'model', grounded: null, reason: 'model_empty' });
    expect(fullOut.fields!.in_stock).toEqual({ source: 'model', grounded: null, reason: 'coerce_failed', value: `${'x'.repeat(200)}…` });
    expect(fullOut.bySource.model.empty).toBe(6);
    // summary keeps source and grounded only
    const summary = groundData({
      data: { price: null },
      schema: SCHEMA,
      origin: () => ({ source: 'model', index: page }),
      settings: { provenance: 'summary', grounding: 'report' },
      nulled,
    });
    expect(summary.fields!.price).toEqual({ source: 'model', grounded: null });
  });

  it('holds the default bounds on a schema of thousands of leaves, a huge value and an unknown script', () => {
    const wide: JsonSchemaObject = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 6_000 }, (_, i) => [`f${i}`, { type: ['string', 'null'] }])),
    };
    const data: Record<string, unknown> = Object.fromEntries(Array.from({ length: 6_000 }, (_, i) => [`f${i}`, 'vampires']));
    data.f0 = 'x '.repeat(GROUNDING_LIMITS.maxValueChars);
    data.f1 = 'ภาษาไทย';
    const page = index();
    const out = groundData({
      data,
      schema: wide,
      origin: () => ({ source: 'model', index: page }),
      settings: { provenance: 'full', grounding: 'report' },
    });
    expect(Object.keys(out.fields!)).toHaveLength(GROUNDING_LIMITS.maxListedLeaves);
    expect(out.fieldsOmitted).toBe(6_000 - GROUNDING_LIMITS.maxListedLeaves);
    expect(out.fields!.f0).toEqual({ source: 'model', grounded: null, reason: 'value_too_long' });
    expect(out.fields!.f1).toEqual({ source: 'model', grounded: null, reason: 'unsupported_script' });
    expect(out.fields!.f2).toMatchObject({ grounded: true });
    expect(out.fields![`f${GROUNDING_LIMITS.maxCheckedLeaves - 1}`]).toMatchObject({ grounded: true });
    expect(out.fields![`f${GROUNDING_LIMITS.maxCheckedLeaves}`]).toEqual({ source: 'model', grounded: null, reason: 'leaf_limit' });
    expect(out.bySource.model).toMatchObject({ grounded: GROUNDING_LIMITS.maxCheckedLeaves - 2, ungrounded: 0 });
  });

  it('bounds a huge answer: leaves past the listing limit are counted, past the checking limit are leaf_limit', () => {
    const page = index();
    const tags = Array.from({ length: 30 }, () => 'vampires');
    const out = groundData({
      data: { tags },
      schema: SCHEMA,
      origin: () => ({ source: 'model', index: page }),
      settings: { provenance: 'full', grounding: 'report' },
      limits: { ...GROUNDING_LIMITS, maxListedLeaves: 20, maxCheckedLeaves: 5 },
    });
    expect(Object.keys(out.fields!)).toHaveLength(20);
    expect(out.fieldsOmitted).toBe(15); // the 5 missing fields' leaves and 10 tags
    expect(out.fields!['tags[4]']).toMatchObject({ grounded: true });
    expect(out.fields!['tags[5]']).toEqual({ source: 'model', grounded: null, reason: 'leaf_limit' });
  });
});
