import { resolveLearnedConfig, checkLearnedConfig, DEFAULT_LEARNED_CONFIG } from './config';
import { parseDate, parseNumber, partialSchema, planFields, valuesAgree, type LearnableField } from './values';

const f = (kind: LearnableField['kind'], list = false): LearnableField => ({ name: 'x', kind, list, nullable: true, required: false });

describe('planFields', () => {
  it('learns scalars and lists of scalars; objects, booleans and mixed types stay with the model', () => {
    const plan = planFields({
      type: 'object',
      properties: {
        title: { type: 'string' },
        price: { type: ['number', 'null'] },
        when: { type: 'string', format: 'date' },
        link: { type: 'string', format: 'uri' },
        tags: { type: 'array', items: { type: 'string' } },
        in_stock: { type: 'boolean' },
        offer: { type: 'object', properties: {} },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['title'],
    });
    expect(plan.fields).toEqual([
      { name: 'title', kind: 'string', list: false, nullable: false, required: true },
      { name: 'price', kind: 'number', list: false, nullable: true, required: false },
      { name: 'when', kind: 'date', list: false, nullable: false, required: false },
      { name: 'link', kind: 'url', list: false, nullable: false, required: false },
      { name: 'tags', kind: 'string', list: true, nullable: false, required: false },
    ]);
    expect(plan.unsupported).toEqual([
      { field: 'in_stock', reason: 'type boolean' },
      { field: 'offer', reason: 'type object' },
      { field: 'either', reason: 'mixed types (string, number)' },
    ]);
  });
});

describe('valuesAgree', () => {
  it('compares text after whitespace and Unicode normalisation, case-sensitively', () => {
    expect(valuesAgree(f('string'), ' Salt\u00a0 Roads ', 'Salt Roads')).toBe(true);
    expect(valuesAgree(f('string'), 'Cafe\u0301', 'Café')).toBe(true);
    expect(valuesAgree(f('string'), 'salt roads', 'Salt Roads')).toBe(false);
  });

  it('treats null, missing, "" and [] alike, and nothing else', () => {
    expect(valuesAgree(f('string'), null, undefined)).toBe(true);
    expect(valuesAgree(f('string'), '', null)).toBe(true);
    expect(valuesAgree(f('string', true), [], null)).toBe(true);
    expect(valuesAgree(f('string'), 'x', null)).toBe(false);
  });

  it('compares numbers numerically, URLs parsed and lists item by item in order', () => {
    expect(valuesAgree(f('number'), 1299.5, '1299.50')).toBe(true);
    expect(valuesAgree(f('number'), 1299.5, 1299)).toBe(false);
    expect(valuesAgree(f('url'), 'http://A.test/x', 'http://a.test/x')).toBe(true);
    expect(valuesAgree(f('string', true), ['a', 'b'], ['a', 'b'])).toBe(true);
    expect(valuesAgree(f('string', true), ['a', 'b'], ['b', 'a'])).toBe(false);
    expect(valuesAgree(f('string', true), ['a'], ['a', 'b'])).toBe(false);
  });
});

describe('parsers', () => {
  it('reads prices and dates as the model-reply coercion does', () => {
    expect(parseNumber('$1,299.00')).toBe(1299);
    expect(parseNumber('1.299,50 €')).toBe(1299.5);
    expect(parseNumber('12,5')).toBe(12.5);
    expect(parseNumber('n/a')).toBeUndefined();
    expect(parseDate('March 3, 2024')).toBe('2024-03-03');
    expect(parseDate('3rd March 2024')).toBe('2024-03-03');
    expect(parseDate('03.04.2024')).toBe('2024-04-03');
    expect(parseDate('2010')).toBeUndefined();
  });
});

describe('learned extraction settings', () => {
  it('overlays settings on the defaults', () => {
    expect(resolveLearnedConfig({ spotCheckEvery: 10 })).toEqual({ ...DEFAULT_LEARNED_CONFIG, spotCheckEvery: 10 });
  });

  it('names every bad setting', () => {
    expect(checkLearnedConfig({ learnPages: 0, acceptAgreement: 2, spotCheckEvery: 2.5, bogus: 1 } as never)).toEqual([
      'learnPages: must be between 1 and 50',
      'acceptAgreement: must be between 0.5 and 1',
      'spotCheckEvery: must be a whole number',
      'bogus: unknown setting (known: learnPages, verifyPages, acceptAgreement, spotCheckEvery, retireFieldShare, retireAfter, retireWindow, maxSamples, templateSimilarity)',
    ]);
    expect(checkLearnedConfig({ retireAfter: 6, retireWindow: 5 })).toEqual(['retireAfter: must not exceed retireWindow']);
    expect(() => resolveLearnedConfig({ verifyPages: -1 })).toThrow(
      'invalid learned extraction settings: verifyPages: must be between 1 and 200',
    );
  });
});

describe('partialSchema', () => {
  it('keeps the asked fields, their required flags and the rest of the schema as it is', () => {
    const schema = {
      type: 'object' as const,
      properties: {
        title: { type: 'string' as const },
        author: { type: ['string', 'null'] as Array<'string' | 'null'> },
        isbn: { type: 'string' as const },
      },
      required: ['title', 'author', 'isbn'],
      additionalProperties: false as const,
    };
    expect(partialSchema(schema, ['author', 'isbn'])).toEqual({
      type: 'object',
      properties: { author: { type: ['string', 'null'] }, isbn: { type: 'string' } },
      required: ['author', 'isbn'],
      additionalProperties: false,
    });
    expect(partialSchema(schema, ['nothing'])).toMatchObject({ properties: {}, required: [] });
  });
});
