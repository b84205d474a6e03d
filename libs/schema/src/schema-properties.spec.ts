import { AppError } from '@app/core';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { toOpenAiStrictSchema } from './openai-strict';
import { parseSchema } from './parse-schema';
import { schemaToYaml } from './schema-to-yaml';
import { TYPE_NAMES } from './type-names';

const SCALARS = TYPE_NAMES.filter((name) => name !== 'object' && name !== 'array');
const name = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s));
const description = fc.string({ maxLength: 40 });

// Shorthand: scalars with markers/descriptions, nested objects, lists of anything.
const { shorthand } = fc.letrec<{ shorthand: Record<string, unknown>; value: unknown }>((tie) => ({
  shorthand: fc
    .dictionary(name, tie('value'), { minKeys: 1, maxKeys: 5 })
    .filter((o) => !Object.hasOwn(o, '$schema') && !Object.hasOwn(o, 'type') && !Object.hasOwn(o, 'fields')),
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(fc.constantFrom(...SCALARS), fc.constantFrom('', '?', '!'), fc.option(description))
      .map(([t, m, d]) => (d ? `${t}${m}: ${d}` : `${t}${m}`)),
    description,
    tie('shorthand'),
    tie('value').map((v) => [v]),
  ),
}));

// Field list: every type name, items in all spellings, properties, required, descriptions.
const { fields } = fc.letrec<{ fields: unknown[]; field: Record<string, unknown>; items: unknown }>((tie) => ({
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- fast-check's tie() is untyped
  fields: fc.uniqueArray(tie('field') as fc.Arbitrary<Record<string, unknown>>, { minLength: 1, maxLength: 4, selector: (f) => f.name }),
  field: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ name, type: fc.constantFrom(...SCALARS), description, required: fc.boolean() }, { requiredKeys: ['name'] }),
    fc.record(
      { name, type: fc.constant('object'), properties: tie('fields'), required: fc.boolean() },
      { requiredKeys: ['name', 'properties'] },
    ),
    fc.record({ name, type: fc.constant('array'), items: tie('items'), description }, { requiredKeys: ['name', 'type', 'items'] }),
  ),
  items: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...SCALARS),
    tie('fields'),
    tie('fields').map((f) => ({ description: 'item', fields: f })),
    tie('items').map((i) => ({ type: 'array', items: i })),
  ),
}));

function strictAjv() {
  // allowUnionTypes: optional fields are written ["T", "null"], which strict mode otherwise refuses.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

describe('schema properties (fast-check)', () => {
  it('any generated shorthand or field-list schema parses, compiles strictly (also as OpenAI strict) and round-trips through YAML', () => {
    const ajv = strictAjv();
    fc.assert(
      fc.property(
        fc.oneof(
          shorthand,
          fields.map((f) => ({ description: 'generated', fields: f })),
        ),
        (input) => {
          const parsed = parseSchema(input);
          expect(parsed.jsonSchema.type).toBe('object');
          ajv.compile(parsed.jsonSchema);
          ajv.compile(toOpenAiStrictSchema(parsed.jsonSchema));
          // Compare serialisations (also checks key order); jest's toStrictEqual trips over a field named "constructor".
          const expected = JSON.stringify(parsed.jsonSchema);
          expect(JSON.stringify(parseSchema(schemaToYaml(parsed.jsonSchema)).jsonSchema)).toBe(expected);
          expect(JSON.stringify(parseSchema(JSON.stringify(input)).jsonSchema)).toBe(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('junk is either accepted (and then compiles) or rejected with locations inside body.schema, never anything else', () => {
    const ajv = strictAjv();
    const junk = fc.oneof(
      fc.jsonValue({ maxDepth: 6 }),
      fc.anything({ maxDepth: 4 }),
      fc.string({ maxLength: 200 }),
      fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
      fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })) }),
      fc.record({
        fields: fc.array(
          fc.dictionary(fc.constantFrom('name', 'type', 'items', 'properties', 'required', 'enum'), fc.jsonValue({ maxDepth: 3 })),
        ),
      }),
    );
    fc.assert(
      fc.property(junk, (input) => {
        try {
          const parsed = parseSchema(input);
          ajv.compile(parsed.jsonSchema);
          ajv.compile(toOpenAiStrictSchema(parsed.jsonSchema));
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          const errors = (error as AppError).errors ?? [];
          expect(errors.length).toBeGreaterThan(0);
          for (const e of errors) expect(e.location.startsWith('body.schema')).toBe(true);
        }
      }),
      { numRuns: 800 },
    );
  });
});
