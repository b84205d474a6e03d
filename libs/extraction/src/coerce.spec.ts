import { parseSchema, type JsonSchemaObject } from '@app/schema';
import { coerceToSchema, type CoercedToNull, parseBoolean, parseNumber, toIsoDate, toIsoDateTime } from './coerce';
import { parseModelJson } from './reply-parser';

describe('parseNumber', () => {
  it.each([
    ['$1,299.00', 1299],
    ['1.299,00 €', 1299],
    ['12,5', 12.5],
    ['-3.25', -3.25],
    ['EUR 15', 15],
    ['1 299,50', 1299.5],
    ['2.5k', 2500],
    ['1.000.000', 1000000],
  ])('%s → %d', (raw, expected) => expect(parseNumber(raw)).toBe(expected));
  it.each(['', 'n/a', 'free', '12-14'])('%s is not a number', (raw) => expect(parseNumber(raw)).toBeUndefined());
});

describe('dates and booleans', () => {
  it.each([
    ['March 3, 2024', '2024-03-03'],
    ['3 March 2024', '2024-03-03'],
    ['2024-03-03T10:00:00Z', '2024-03-03'],
    ['03.04.2024', '2024-04-03'],
    ['June 1st, 2020', '2020-06-01'],
  ])('date %s → %s', (raw, expected) => expect(toIsoDate(raw)).toBe(expected));
  it('reads date-times as UTC unless an offset is given', () => {
    expect(toIsoDateTime('2024-03-03 10:00')).toBe('2024-03-03T10:00:00.000Z');
    expect(toIsoDateTime('2024-03-03T10:00:00+02:00')).toBe('2024-03-03T08:00:00.000Z');
    expect(toIsoDateTime('soon')).toBeUndefined();
  });
  it.each([
    ['yes', true],
    ['In stock', true],
    ['no', false],
    ['maybe', undefined],
  ])('boolean %s → %s', (raw, expected) => expect(parseBoolean(raw)).toBe(expected));
});

describe('coerceToSchema', () => {
  const schema = parseSchema({
    price: 'number',
    count: 'integer',
    in_stock: 'boolean',
    released: 'date',
    link: 'url',
    tags: ['string'],
    offers: [{ price: 'number' }],
  }).jsonSchema;
  it('coerces the obvious forms and leaves the rest for the validator', () => {
    const out = coerceToSchema(
      {
        price: '$1,299.00',
        count: '3',
        in_stock: 'yes',
        released: 'March 3, 2024',
        link: '/p/1',
        tags: 'single',
        offers: [{ price: '9,99 €' }],
        extra: 1,
      },
      schema,
      'https://shop.example/list',
    );
    expect(out).toEqual({
      price: 1299,
      count: 3,
      in_stock: true,
      released: '2024-03-03',
      link: 'https://shop.example/p/1',
      tags: ['single'],
      offers: [{ price: 9.99 }],
      extra: 1,
    });
  });
  it('turns empty strings into null where null is allowed', () => {
    expect(coerceToSchema({ price: '' }, schema)).toMatchObject({ price: null });
  });
  it('turns a number or boolean text it cannot read into null where null is allowed, and lists it with its path', () => {
    const nulled: CoercedToNull[] = [];
    const out = coerceToSchema(
      { price: 'Call for price', count: '3', in_stock: 'ask us', tags: ['a'], offers: [{ price: '9,99 €' }, { price: 'n/a' }] },
      schema,
      undefined,
      nulled,
    );
    expect(out).toMatchObject({ price: null, count: 3, in_stock: null, offers: [{ price: 9.99 }, { price: null }] });
    expect(nulled).toEqual([
      { path: ['price'], value: 'Call for price' },
      { path: ['in_stock'], value: 'ask us' },
      { path: ['offers', 1, 'price'], value: 'n/a' },
    ]);
  });
  it('leaves a text it cannot read for the validator where null is not allowed, and lists nothing', () => {
    const strict: JsonSchemaObject = { type: 'object', properties: { price: { type: 'number' }, ok: { type: 'boolean' } } };
    const nulled: CoercedToNull[] = [];
    expect(coerceToSchema({ price: 'free', ok: 'maybe' }, strict, undefined, nulled)).toEqual({ price: 'free', ok: 'maybe' });
    expect(nulled).toEqual([]);
  });
  it('prefers an anyOf option that takes the text as it is to one that would make it null', () => {
    const either: JsonSchemaObject = {
      type: 'object',
      properties: {
        price: { anyOf: [{ type: ['number', 'null'] }, { type: 'string' }] },
        rating: { anyOf: [{ type: 'integer' }, { type: ['number', 'null'] }] },
      },
    };
    const nulled: CoercedToNull[] = [];
    expect(coerceToSchema({ price: 'soon', rating: 'none yet' }, either, undefined, nulled)).toEqual({ price: 'soon', rating: null });
    expect(nulled).toEqual([{ path: ['rating'], value: 'none yet' }]);
  });
});

describe('parseModelJson', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['Here you go:\n```json\n{"a": 1}\n```\nHope it helps.', { a: 1 }],
    ['The answer is {"a": {"b": [1, 2]}} as requested.', { a: { b: [1, 2] } }],
    ["{'a': 1, 'b': [1,2,],}", { a: 1, b: [1, 2] }],
    ['[{"x": 1}]', [{ x: 1 }]],
  ])('recovers %j', (text, expected) => expect(parseModelJson(text)).toEqual(expected));
  it.each(['', 'I could not find any data on this page.', '42'])('gives up on %j', (text) => expect(parseModelJson(text)).toBeUndefined());
});
