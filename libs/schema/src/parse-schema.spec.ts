import { parseSchema } from './parse-schema';
import { schemaErrors } from '../../../test/harness/schema-errors';
import type { JsonSchemaObject } from './types';

const S = { type: ['string', 'null'] };

describe('parseSchema: shorthand', () => {
  it('normalises every type name, nesting, lists and descriptions', () => {
    const { form, jsonSchema, fieldCount } = parseSchema({
      title: 'string',
      price: 'number',
      count: 'integer',
      inStock: 'boolean',
      published: 'date',
      updated: 'datetime',
      link: 'url',
      contact: 'email',
      summary: 'A one-line summary',
      tags: ['string'],
      offers: [{ seller: 'string' }],
      author: { name: 'string' },
    });
    expect(form).toBe('shorthand');
    expect(fieldCount).toBe(14);
    expect(jsonSchema).toEqual({
      type: 'object',
      properties: {
        title: S,
        price: { type: ['number', 'null'] },
        count: { type: ['integer', 'null'] },
        inStock: { type: ['boolean', 'null'] },
        published: { type: ['string', 'null'], format: 'date' },
        updated: { type: ['string', 'null'], format: 'date-time' },
        link: { type: ['string', 'null'], format: 'uri' },
        contact: { type: ['string', 'null'], format: 'email' },
        summary: { type: ['string', 'null'], description: 'A one-line summary' },
        tags: { type: ['array', 'null'], items: { type: 'string' } },
        offers: {
          type: ['array', 'null'],
          items: { type: 'object', properties: { seller: S }, required: [], additionalProperties: false },
        },
        author: { type: ['object', 'null'], properties: { name: S }, required: [], additionalProperties: false },
      },
      required: [],
      additionalProperties: false,
    });
  });

  it('supports ?, ! , "type: description", aliases and any case', () => {
    const { jsonSchema } = parseSchema({ a: 'number?', b: 'Number!', c: 'date: when it was published', d: 'int', e: 'string!: the id' });
    expect(jsonSchema.required).toEqual(['b', 'e']);
    expect(jsonSchema.properties).toEqual({
      a: { type: ['number', 'null'] },
      b: { type: 'number' },
      c: { type: ['string', 'null'], description: 'when it was published', format: 'date' },
      d: { type: ['integer', 'null'] },
      e: { type: 'string', description: 'the id' },
    });
  });

  it('supports lists of lists', () => {
    expect(parseSchema({ grid: [['number']] }).jsonSchema.properties?.grid).toEqual({
      type: ['array', 'null'],
      items: { type: 'array', items: { type: 'number' } },
    });
  });

  it('rejects wrong shapes with their locations, several at once', () => {
    expect(
      schemaErrors(() => parseSchema({ a: 1, b: [], c: ['string', 'number'], d: {}, e: 'object', f: 'array', g: null, h: { x: true } })),
    ).toEqual([
      { location: 'body.schema.a', message: 'expected a type name, a description, an object or a list; got a number', value: 1 },
      { location: 'body.schema.b', message: expect.stringContaining('exactly one item type') },
      { location: 'body.schema.c', message: expect.stringContaining('exactly one item type') },
      { location: 'body.schema.d', message: 'object has no fields' },
      { location: 'body.schema.e', message: expect.stringContaining('an object needs fields'), value: 'object' },
      { location: 'body.schema.f', message: expect.stringContaining('a list needs an item type'), value: 'array' },
      { location: 'body.schema.g', message: expect.stringContaining('got null'), value: null },
      { location: 'body.schema.h.x', message: expect.stringContaining('got a boolean'), value: true },
    ]);
  });

  it('points into nested lists and odd keys', () => {
    expect(schemaErrors(() => parseSchema({ offers: [{ 'unit price': 5 }] }))).toEqual([
      { location: 'body.schema.offers[0]["unit price"]', message: expect.any(String), value: 5 },
    ]);
  });
});

describe('parseSchema: field list', () => {
  it('normalises names, types, required, items in every spelling, properties and enum', () => {
    const { form, jsonSchema } = parseSchema({
      name: 'product',
      description: 'A product page',
      fields: [
        { name: 'title', type: 'string', description: 'Product title', required: true },
        { name: 'price', type: 'number' },
        { name: 'tags', type: 'array', items: 'string' },
        { name: 'offers', type: 'array', items: [{ name: 'seller' }] },
        { name: 'reviews', items: { description: 'A review', fields: [{ name: 'stars', type: 'integer' }] } },
        { name: 'grid', type: 'array', items: { type: 'array', items: 'number' } },
        { name: 'author', properties: [{ name: 'name', required: true }] },
        { name: 'currency', enum: ['EUR', 'USD'] },
      ],
    });
    expect(form).toBe('fields');
    expect(jsonSchema).toEqual({
      type: 'object',
      title: 'product',
      description: 'A product page',
      properties: {
        title: { type: 'string', description: 'Product title' },
        price: { type: ['number', 'null'] },
        tags: { type: ['array', 'null'], items: { type: 'string' } },
        offers: {
          type: ['array', 'null'],
          items: { type: 'object', properties: { seller: S }, required: [], additionalProperties: false },
        },
        reviews: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            description: 'A review',
            properties: { stars: { type: ['integer', 'null'] } },
            required: [],
            additionalProperties: false,
          },
        },
        grid: { type: ['array', 'null'], items: { type: 'array', items: { type: 'number' } } },
        author: { type: ['object', 'null'], properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
        currency: { type: ['string', 'null'], enum: ['EUR', 'USD', null] },
      },
      required: ['title'],
      additionalProperties: false,
    });
  });

  it('reports an unknown type at its exact location with the value', () => {
    const errors = schemaErrors(() => parseSchema({ fields: [{ name: 'a' }, { name: 'b' }, { name: 'c', type: 'strng' }] }));
    expect(errors).toEqual([{ location: 'body.schema.fields[2].type', message: 'unknown type "strng"', value: 'strng' }]);
  });

  it('collects every problem in one go', () => {
    const errors = schemaErrors(() =>
      parseSchema(
        {
          name: '',
          fields: [
            { name: 'a', type: 'string', colour: 'red' },
            { name: 'a' },
            { type: 'number' },
            'title',
            { name: 'b', type: 'array' },
            { name: 'c', type: 'object' },
            { name: 'd', type: 'string', items: 'string', required: 'yes' },
            { name: 'e', type: 'array', items: 'strng' },
            { name: 'f', type: 'boolean', enum: [true] },
            { name: 'g', type: 'integer', enum: [1, 1.5, 1] },
            { name: 'h', properties: [] },
            { name: 'i', type: 7 },
          ],
        },
        'body.extract.schema',
      ),
    );
    expect(errors.map((e) => `${e.location}: ${e.message}`)).toEqual([
      'body.extract.schema.name: name must be a non-empty string',
      'body.extract.schema.fields[0].colour: unknown key "colour" (allowed: name, type, description, required, items, properties, enum)',
      'body.extract.schema.fields[1].name: duplicate field name "a"',
      'body.extract.schema.fields[2].name: field needs a name',
      'body.extract.schema.fields[3]: expected a field object {name, type, ...}; got a string',
      'body.extract.schema.fields[4]: an array field needs "items" (a type name, a list of fields or {fields: [...]})',
      'body.extract.schema.fields[5]: an object field needs "properties" (a list of fields)',
      'body.extract.schema.fields[6].required: required must be true or false',
      'body.extract.schema.fields[6].items: "items" is only allowed for type array',
      'body.extract.schema.fields[7].items: unknown type "strng"',
      'body.extract.schema.fields[8].enum: "enum" is only allowed for string, number and integer fields',
      'body.extract.schema.fields[9].enum[1]: enum value does not match type integer',
      'body.extract.schema.fields[9].enum[2]: duplicate enum value',
      'body.extract.schema.fields[10].properties: field list is empty',
      'body.extract.schema.fields[11].type: type must be one of: string, number, integer, boolean, object, array, date, datetime, url, email',
    ]);
  });

  it('rejects an empty field list and unknown root keys', () => {
    expect(schemaErrors(() => parseSchema({ fields: [], extra: 1 }))).toEqual([
      { location: 'body.schema.extra', message: 'unknown key "extra" (allowed: name, description, fields)' },
      { location: 'body.schema.fields', message: 'field list is empty' },
    ]);
  });
});

describe('parseSchema: roots, names and limits', () => {
  it.each([
    [[], 'got a list'],
    ['[1, 2]', 'got a list'],
    [42, 'got a number'],
    ['"just a string"', 'got a string'],
    [true, 'got a boolean'],
  ])('rejects a non-object root %p', (input, text) => {
    expect(schemaErrors(() => parseSchema(input))).toEqual([{ location: 'body.schema', message: expect.stringContaining(text) }]);
  });

  it('rejects an empty or missing schema', () => {
    expect(schemaErrors(() => parseSchema({}))).toEqual([{ location: 'body.schema', message: 'schema has no fields' }]);
    expect(schemaErrors(() => parseSchema(undefined))).toEqual([{ location: 'body.schema', message: 'schema is required' }]);
    expect(schemaErrors(() => parseSchema('  '))).toEqual([{ location: 'body.schema', message: 'schema text is empty' }]);
  });

  it('rejects invalid field names in every form', () => {
    const long = 'x'.repeat(129);
    expect(
      schemaErrors(() => parseSchema({ '': 'string', [long]: 'string', 'a\u0000b': 'string', ok: 'string' })).map((e) => e.message),
    ).toEqual([
      'field name must not be empty',
      'field name is longer than 128 characters',
      'field name must not contain control characters',
    ]);
    expect(schemaErrors(() => parseSchema({ fields: [{ name: 'tab\there' }] }))[0]).toMatchObject({
      location: 'body.schema.fields[0].name',
    });
    expect(schemaErrors(() => parseSchema({ type: 'object', properties: { 'a\nb': { type: 'string' } } }))[0]).toMatchObject({
      location: 'body.schema.properties["a\\nb"]',
    });
    expect(parseSchema({ ['x'.repeat(128)]: 'string', 'unit price (€)': 'number' }).fieldCount).toBe(2);
  });

  it('keeps a field called __proto__ as a plain property', () => {
    const { jsonSchema } = parseSchema('{"__proto__": "string", "a": "number"}');
    expect(Object.keys(jsonSchema.properties ?? {})).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(jsonSchema.properties)).toBe(Object.prototype);
  });

  it('rejects a depth bomb (value and text)', () => {
    // Deep enough that unbounded recursion overflows the stack (a RangeError, not this error) and
    // that work quadratic in the depth would not finish within the test timeout.
    let deep: Record<string, unknown> = { leaf: 'string' };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(schemaErrors(() => parseSchema(deep))[0].message).toBe('schema is nested deeper than 32 levels');
    const text = `${'{"a":'.repeat(40_000)}"string"${'}'.repeat(40_000)}`;
    expect(schemaErrors(() => parseSchema(text))[0].message).toBe('schema is nested deeper than 32 levels');
    const yaml = `${'['.repeat(120_000)}${']'.repeat(120_000)}`;
    expect(schemaErrors(() => parseSchema(yaml))[0].message).toMatch(/nested deeper than 32 levels/);
  });

  it('accepts 32 levels and rejects 33', () => {
    const nest = (levels: number) => {
      let value: Record<string, unknown> = { leaf: 'string' };
      for (let i = 1; i < levels; i++) value = { a: value };
      return value;
    };
    expect(parseSchema(nest(32)).fieldCount).toBe(32);
    expect(schemaErrors(() => parseSchema(nest(33)))[0].message).toMatch(/deeper than 32/);
  });

  it('rejects a cyclic value handed in by code', () => {
    const cyclic: Record<string, unknown> = { a: 'string' };
    cyclic.self = cyclic;
    expect(schemaErrors(() => parseSchema(cyclic))[0].message).toMatch(/deeper than 32/);
  });

  it('caps the number of fields', () => {
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, 'string']));
    expect(schemaErrors(() => parseSchema(many))).toEqual([{ location: 'body.schema.f1000', message: 'schema has more than 1000 fields' }]);
    delete many.f1000;
    expect(parseSchema(many).fieldCount).toBe(1000);
  });

  it('rejects non-JSON values', () => {
    expect(schemaErrors(() => parseSchema({ a: 'string', b: () => 1 }))[0]).toMatchObject({
      location: 'body.schema.b',
      message: 'not a JSON value (function)',
    });
    expect(schemaErrors(() => parseSchema({ type: 'object', properties: { a: { type: 'number', maximum: Infinity } } }))[0]).toMatchObject({
      location: 'body.schema.properties.a.maximum',
      message: 'numbers must be finite',
    });
  });

  it('caps the number of errors reported', () => {
    const bad = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, i]));
    expect(schemaErrors(() => parseSchema(bad))).toHaveLength(50);
  });
});

describe('parseSchema: equivalence of the three forms', () => {
  const shorthand = {
    title: 'string: The product title',
    sku: 'string!',
    price: 'number',
    released: 'date',
    tags: ['string'],
    offers: [{ seller: 'string', url: 'url' }],
    author: { name: 'string', email: 'email' },
  };
  const fields = {
    fields: [
      { name: 'title', type: 'string', description: 'The product title' },
      { name: 'sku', type: 'string', required: true },
      { name: 'price', type: 'number' },
      { name: 'released', type: 'date' },
      { name: 'tags', type: 'array', items: 'string' },
      { name: 'offers', type: 'array', items: [{ name: 'seller' }, { name: 'url', type: 'url' }] },
      { name: 'author', type: 'object', properties: [{ name: 'name' }, { name: 'email', type: 'email' }] },
    ],
  };
  const jsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      title: { type: 'string', description: 'The product title' },
      sku: { type: 'string' },
      price: { type: 'number' },
      released: { type: 'string', format: 'date' },
      tags: { type: 'array', items: { type: 'string' } },
      offers: { type: 'array', items: { $ref: '#/$defs/offer' } },
      author: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } } },
    },
    required: ['sku'],
    additionalProperties: false,
    $defs: { offer: { type: 'object', properties: { seller: { type: 'string' }, url: { type: 'string', format: 'uri' } } } },
  };

  it('normalises all three (as values and as YAML/JSON text) to the identical schema', () => {
    const results: JsonSchemaObject[] = [shorthand, fields, jsonSchema].flatMap((value) => [
      parseSchema(value).jsonSchema,
      parseSchema(JSON.stringify(value)).jsonSchema,
    ]);
    for (const result of results) expect(result).toStrictEqual(results[0]);
    expect(JSON.stringify(results[0])).toBe(JSON.stringify(results[5])); // same key order too
    expect(parseSchema(jsonSchema).fieldCount).toBe(parseSchema(shorthand).fieldCount);
  });
});
