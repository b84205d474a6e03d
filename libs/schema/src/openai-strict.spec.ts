import { toOpenAiStrictSchema } from './openai-strict';
import { parseSchema } from './parse-schema';
import type { JsonSchemaObject } from './types';

/** Every object in the tree: closed, all properties required. */
function assertStrict(schema: JsonSchemaObject): void {
  if (schema.properties) {
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(Object.keys(schema.properties));
    Object.values(schema.properties).forEach(assertStrict);
  }
  if (schema.items) assertStrict(schema.items);
  schema.anyOf?.forEach(assertStrict);
  expect(schema.minLength).toBeUndefined();
  expect(schema.maxLength).toBeUndefined();
  expect(schema.format === 'uri').toBe(false);
}

describe('toOpenAiStrictSchema', () => {
  it('closes objects, requires every property and keeps optional ones nullable', () => {
    const { jsonSchema } = parseSchema({ title: 'string!', price: 'number', offers: [{ seller: 'string', url: 'url' }] });
    const strict = toOpenAiStrictSchema(jsonSchema);
    assertStrict(strict);
    expect(strict).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string' },
        price: { type: ['number', 'null'] },
        offers: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            properties: { seller: { type: ['string', 'null'] }, url: { type: ['string', 'null'], description: 'a URL' } },
            required: ['seller', 'url'],
            additionalProperties: false,
          },
        },
      },
      required: ['title', 'price', 'offers'],
      additionalProperties: false,
    });
  });

  it('makes a non-nullable optional property nullable (hand-built schema)', () => {
    const strict = toOpenAiStrictSchema({
      type: 'object',
      properties: { a: { type: 'string', enum: ['x'] }, b: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
      required: [],
    });
    expect(strict.properties).toEqual({
      a: { type: ['string', 'null'], enum: ['x', null] },
      b: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
    });
    expect(strict.required).toEqual(['a', 'b']);
    expect(strict.additionalProperties).toBe(false);
  });

  it('moves length limits and the uri format into the description', () => {
    const { jsonSchema } = parseSchema({
      type: 'object',
      properties: {
        code: { type: 'string', description: 'Code', minLength: 2, maxLength: 8 },
        short: { type: 'string', maxLength: 8 },
        home: { type: 'string', format: 'uri', description: 'Home page' },
        day: { type: 'string', format: 'date' },
      },
      required: ['code', 'short', 'home', 'day'],
    });
    expect(toOpenAiStrictSchema(jsonSchema).properties).toEqual({
      code: { type: 'string', description: 'Code (2 to 8 characters)' },
      short: { type: 'string', description: 'at most 8 characters' },
      home: { type: 'string', description: 'Home page (a URL)' },
      day: { type: 'string', format: 'date' },
    });
    expect(jsonSchema.properties?.code.minLength).toBe(2); // input untouched
  });
});
