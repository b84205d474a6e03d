import { compileValidator } from './compile-validator';
import { parseSchema } from './parse-schema';

describe('compileValidator', () => {
  const { jsonSchema } = parseSchema({
    type: 'object',
    properties: {
      title: { type: 'string' },
      price: { type: 'number', minimum: 0 },
      code: { type: 'string', pattern: '^(a+)+$' },
      offers: { type: 'array', items: { type: 'object', properties: { url: { type: 'string', format: 'uri' } } } },
      'odd key': { type: 'string' },
    },
    required: ['title'],
  });

  it('accepts valid data, including null for optional fields', () => {
    const validate = compileValidator(jsonSchema);
    expect(validate({ title: 'x', price: null, offers: [{ url: 'https://e.com' }] })).toEqual({ valid: true, errors: [] });
  });

  it('reports all errors with readable paths', () => {
    const result = compileValidator(jsonSchema)({ price: -1, offers: [{ url: 'not a url', extra: 1 }], 'odd key': 3, more: true });
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        { path: '$.title', message: 'is required' },
        { path: '$.more', message: 'is not allowed' },
        { path: '$.price', message: 'must be >= 0' },
        { path: '$.offers[0].extra', message: 'is not allowed' },
        { path: '$.offers[0].url', message: 'must match format "uri"' },
        { path: '$["odd key"]', message: 'must be string,null' },
      ]),
    );
  });

  it('runs patterns on RE2: a classic ReDoS pattern stays linear', () => {
    // A backtracking engine needs ~2^n steps for ^(a+)+$ against n a's and a mismatch at the end: with
    // n = 50 000 it would not finish within the test timeout, so getting the answer at all proves RE2.
    const result = compileValidator(jsonSchema)({ title: 'x', code: `${'a'.repeat(50_000)}!` });
    expect(result.errors).toEqual([{ path: '$.code', message: 'must match pattern "^(a+)+$"' }]);
  });

  it('keeps different patterns apart (ajv keys patterns by toString)', () => {
    const { jsonSchema: two } = parseSchema({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } },
      required: ['a', 'b'],
    });
    const validate = compileValidator(two);
    expect(validate({ a: 'a', b: 'b' }).valid).toBe(true);
    expect(validate({ a: 'b', b: 'a' }).errors.map((e) => e.path)).toEqual(['$.a', '$.b']);
  });

  it('caches per schema content', () => {
    expect(compileValidator(jsonSchema)).toBe(compileValidator(JSON.parse(JSON.stringify(jsonSchema))));
  });

  it('hands one schema object its validator again, and equal content the same one, also past the cache size', () => {
    const schema = () =>
      ({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }) as never;
    const a = schema();
    const first = compileValidator(a);
    expect(compileValidator(a)).toBe(first);
    expect(compileValidator(schema())).toBe(first);
    // 300 other schemas push it out of the content cache: it is compiled again, and still right.
    for (let i = 0; i < 300; i++) compileValidator({ type: 'object', properties: { [`f${i}`]: { type: 'string' } } } as never);
    const again = compileValidator(a);
    expect(again).not.toBe(first);
    expect(again({ n: 1 }).valid).toBe(true);
    expect(again({ n: 'x' }).valid).toBe(false);
  });
});
