import { parseSchema } from './parse-schema';
import { schemaErrors } from '../../../test/harness/schema-errors';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('parseSchema: JSON Schema subset', () => {
  it('keeps supported keywords and makes optional properties nullable', () => {
    const { form, jsonSchema } = parseSchema(
      obj(
        {
          name: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[A-Z]', title: 'Name' },
          rating: { type: 'number', minimum: 0, maximum: 5 },
          stock: { type: 'integer', exclusiveMinimum: 0 },
          kind: { enum: ['book', 'film'] },
          fixed: { const: 'v1' },
          maybe: { type: ['string', 'null'] },
          legacy: { type: 'string', nullable: true },
          idOrCode: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
          list: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
        },
        { required: ['name', 'maybe', 'legacy', 'idOrCode'], title: 'Thing', description: 'A thing' },
      ),
    );
    expect(form).toBe('json_schema');
    expect(jsonSchema).toEqual({
      type: 'object',
      title: 'Thing',
      description: 'A thing',
      properties: {
        name: { type: 'string', title: 'Name', pattern: '^[A-Z]', minLength: 1, maxLength: 200 },
        rating: { type: ['number', 'null'], minimum: 0, maximum: 5 },
        stock: { type: ['integer', 'null'], exclusiveMinimum: 0 },
        kind: { enum: ['book', 'film', null] },
        fixed: { enum: ['v1', null] },
        maybe: { type: ['string', 'null'] },
        legacy: { type: ['string', 'null'] },
        idOrCode: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        list: { type: ['array', 'null'], items: { type: 'string' }, minItems: 1, maxItems: 3 },
      },
      required: ['name', 'maybe', 'legacy', 'idOrCode'],
      additionalProperties: false,
    });
  });

  it('rejects unsupported keywords with hints', () => {
    const errors = schemaErrors(() =>
      parseSchema(
        obj(
          {
            a: { type: 'string', oneOf: [] },
            b: { type: 'string', minimum: 1 },
            c: { type: 'string', format: 'hostname' },
            d: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: true },
            e: { type: 'string', default: 'x' },
            f: { type: ['string', 'number'] },
            g: { type: 'strin' },
            h: { description: 'no type' },
            i: { type: 'array' },
            j: { type: 'object' },
            k: { type: 'string', pattern: '(?=a)b' },
            l: { type: 'string', minLength: 5, maxLength: 2 },
            m: { type: 'number', $defs: {} },
            n: { anyOf: [{ anyOf: [{ type: 'string' }] }] },
            o: { type: 'string', anyOf: [{ type: 'string' }] },
          },
          { required: ['zz'] },
        ),
      ),
    );
    expect(errors.map((e) => `${e.location}: ${e.message}`)).toEqual([
      'body.schema.required[0]: required names a property that is not in "properties"',
      'body.schema.properties.a.oneOf: oneOf is not supported; use anyOf',
      'body.schema.properties.b.minimum: "minimum" does not apply to type string',
      'body.schema.properties.c.format: unsupported format; use one of: date, date-time, uri, email',
      'body.schema.properties.d.additionalProperties: additionalProperties must be false (the model may only fill listed fields)',
      'body.schema.properties.e.default: unsupported JSON Schema keyword "default"',
      'body.schema.properties.f.type: a type list may only combine one type with "null"; use anyOf for other unions',
      'body.schema.properties.g.type: type must be one of string, number, integer, boolean, object, array, null (or a list of one of them and "null")',
      'body.schema.properties.h: schema needs a "type" (or enum, const, anyOf, $ref)',
      'body.schema.properties.i: an array schema needs "items"',
      'body.schema.properties.j.properties: an object schema needs non-empty "properties"',
      expect.stringMatching(/^body\.schema\.properties\.k\.pattern: pattern is not a supported regular expression/),
      'body.schema.properties.l.maxLength: maxLength is less than minLength',
      'body.schema.properties.m.$defs: "$defs" is only allowed at the root',
      'body.schema.properties.n.anyOf[0].anyOf: nested anyOf is not supported',
      'body.schema.properties.o.anyOf: anyOf cannot be combined with type, enum or const here',
    ]);
  });

  it('requires an object root', () => {
    expect(
      schemaErrors(() =>
        parseSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', items: { type: 'string' } }),
      ),
    ).toEqual([{ location: 'body.schema.type', message: 'the root schema must have type "object"', value: 'array' }]);
    expect(schemaErrors(() => parseSchema({ type: ['object', 'null'], properties: { a: { type: 'string' } } }))[0].location).toBe(
      'body.schema.type',
    );
    expect(
      schemaErrors(() => parseSchema({ $schema: 'http://example.com/s', type: 'object', properties: { a: { type: 'string' } } }))[0]
        .location,
    ).toBe('body.schema.$schema');
  });

  describe('$ref', () => {
    it('inlines local $defs refs, with title/description overrides', () => {
      const { jsonSchema, fieldCount } = parseSchema({
        type: 'object',
        properties: { home: { $ref: '#/$defs/address', description: 'Home' }, work: { $ref: '#/$defs/address' } },
        $defs: { address: { type: 'object', description: 'An address', properties: { city: { type: 'string' } } } },
      });
      const address = { properties: { city: { type: ['string', 'null'] } }, required: [], additionalProperties: false };
      expect(jsonSchema.properties).toEqual({
        home: { type: ['object', 'null'], description: 'Home', ...address },
        work: { type: ['object', 'null'], description: 'An address', ...address },
      });
      expect(fieldCount).toBe(4); // each inlined use counts
    });

    it('rejects remote, malformed, missing and recursive refs and siblings', () => {
      const errors = schemaErrors(() =>
        parseSchema({
          type: 'object',
          properties: {
            a: { $ref: 'https://example.com/schema.json' },
            b: { $ref: '#/definitions/x' },
            c: { $ref: '#/$defs/missing' },
            d: { $ref: '#/$defs/node' },
            e: { $ref: '#/$defs/leaf', type: 'string' },
          },
          $defs: {
            node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } },
            leaf: { type: 'string' },
            unused: { type: 'strng' },
          },
        }),
      );
      expect(errors.map((e) => `${e.location}: ${e.message}`)).toEqual([
        'body.schema.properties.a.$ref: only local references of the form "#/$defs/<name>" are supported',
        'body.schema.properties.b.$ref: only local references of the form "#/$defs/<name>" are supported',
        'body.schema.properties.c.$ref: no such definition "missing" in $defs',
        'body.schema.$defs.node.properties.child.$ref: recursive $ref is not supported (#/$defs/node)',
        'body.schema.properties.e.type: "type" cannot be combined with $ref (only title and description can)',
        'body.schema.$defs.unused.type: type must be one of string, number, integer, boolean, object, array, null (or a list of one of them and "null")',
      ]);
    });

    it('stops an exponential $ref expansion at the field cap', () => {
      // Fully expanded, l30 has 2^31 fields: an expansion that did not stop at the cap would neither
      // fit in memory nor finish within the test timeout, so the cap error itself proves the early stop.
      const $defs: Record<string, unknown> = { l0: { type: 'object', properties: { x: { type: 'string' } } } };
      for (let i = 1; i <= 30; i++)
        $defs[`l${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/l${i - 1}` }, b: { $ref: `#/$defs/l${i - 1}` } } };
      const errors = schemaErrors(() => parseSchema({ type: 'object', properties: { root: { $ref: '#/$defs/l30' } }, $defs }));
      expect(errors[0].message).toBe('schema has more than 1000 fields');
    });
  });
});
