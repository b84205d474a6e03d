import { parseSchema } from './parse-schema';
import { schemaErrors } from '../../../test/harness/schema-errors';

describe('parseSchema: schema given as text', () => {
  it('accepts JSON and YAML text in every form', () => {
    expect(parseSchema('{"title": "string"}').form).toBe('shorthand');
    expect(parseSchema('title: string\ntags: [string]\nauthor:\n  name: string\n').fieldCount).toBe(4);
    expect(parseSchema('fields:\n  - name: title\n    type: string\n').form).toBe('fields');
    expect(parseSchema('type: object\nproperties:\n  title: {type: string}\n').form).toBe('json_schema');
    expect(parseSchema('{title: string}').form).toBe('shorthand'); // YAML flow, not JSON
  });

  it('allows a few YAML aliases for reuse', () => {
    const { jsonSchema } = parseSchema('billing: &address\n  street: string\n  city: string\nshipping: *address\n');
    expect(jsonSchema.properties?.shipping).toEqual(jsonSchema.properties?.billing);
  });

  it('rejects a billion-laughs alias bomb', () => {
    const bomb = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...'bcdefghi'.split('').map((name, i) => {
        const previous = 'abcdefghi'[i];
        return `${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`;
      }),
    ].join('\n');
    // Expanded, the bomb is 9^9 (~387 million) strings: a parser that expanded it before counting
    // aliases would run out of memory or past the test timeout instead of returning this error.
    const errors = schemaErrors(() => parseSchema(bomb));
    expect(errors).toEqual([{ location: 'body.schema', message: expect.stringContaining('YAML aliases expand too much') }]);
  });

  it('rejects duplicate keys in YAML, pointing at the key', () => {
    const errors = schemaErrors(() => parseSchema('title: string\nauthor:\n  name: string\n  name: number\ntitle: number\n'));
    expect(errors).toEqual([
      { location: 'body.schema.author.name', message: 'duplicate key "name" (line 4)', value: 'name' },
      { location: 'body.schema.title', message: 'duplicate key "title" (line 5)', value: 'title' },
    ]);
  });

  it('rejects duplicate keys in JSON text, pointing at the key', () => {
    const errors = schemaErrors(() =>
      parseSchema('{"fields": [{"name": "a"}, {"name": "b", "type": "string", "type": "number"}], "x\\"y": 1, "x\\"y": 2}'),
    );
    expect(errors).toEqual([
      { location: 'body.schema.fields[1].type', message: 'duplicate key "type"', value: 'type' },
      { location: 'body.schema["x\\"y"]', message: 'duplicate key "x\\"y"', value: 'x"y' },
    ]);
  });

  it('ignores braces and commas inside JSON strings when looking for duplicates', () => {
    expect(parseSchema('{"a": "string: has {, [ and \\" inside", "b": ["string"], "c": {"a": "number"}}').fieldCount).toBe(4);
  });

  it('rejects YAML tags and complex keys', () => {
    expect(schemaErrors(() => parseSchema('title: !!str string\nx: !custom y\n')).map((e) => e.location)).toEqual([
      'body.schema.title',
      'body.schema.x',
    ]);
    expect(schemaErrors(() => parseSchema('? [a, b]\n: string\n'))[0].message).toBe('YAML keys must be plain strings');
  });

  it('reports syntax errors', () => {
    expect(schemaErrors(() => parseSchema('{"title": "string",'))[0].message).toMatch(
      /^schema is neither valid JSON \(.+\) nor valid YAML/,
    );
    expect(schemaErrors(() => parseSchema('title: [string\nprice: number'))[0].message).toMatch(/^invalid YAML/);
    expect(schemaErrors(() => parseSchema('a: b: c'))[0]).toMatchObject({ location: 'body.schema' });
  });

  it('rejects a huge document before parsing it', () => {
    const huge = `{${Array.from({ length: 20_000 }, (_, i) => `"field_${i}": "string"`).join(',')}}`;
    expect(huge.length).toBeGreaterThan(256 * 1024);
    const tooLarge = [{ location: 'body.schema', message: 'schema text is larger than 256 KiB' }];
    expect(schemaErrors(() => parseSchema(huge))).toEqual(tooLarge);
    // Not parsed at all: the same text cut short is invalid JSON and YAML, yet the size is the only
    // error (a parser that ran first would report the syntax error).
    expect(schemaErrors(() => parseSchema(huge.slice(0, -1)))).toEqual(tooLarge);
  });

  it('rejects YAML numbers that are not JSON numbers', () => {
    expect(schemaErrors(() => parseSchema('type: object\nproperties:\n  a: {type: number, maximum: .inf}\n'))[0].location).toBe(
      'body.schema.properties.a.maximum',
    );
  });
});
