import { parseSchema } from './parse-schema';
import { schemaToYaml } from './schema-to-yaml';

describe('schemaToYaml', () => {
  it('renders shorthand when it can, and it parses back identically', () => {
    const { jsonSchema } = parseSchema({
      title: 'string',
      sku: 'string!',
      summary: 'A one-line summary',
      kind: 'Date',
      published: 'date: when it was published',
      tags: ['string'],
      offers: [{ seller: 'string', price: 'number!' }],
      author: { name: 'string', url: 'url' },
    });
    const yaml = schemaToYaml(jsonSchema);
    expect(yaml).toBe(
      [
        'title: string',
        'sku: string!',
        'summary: A one-line summary',
        'kind: date',
        'published: "date: when it was published"',
        'tags:',
        '  - string',
        'offers:',
        '  - seller: string',
        '    price: number!',
        'author:',
        '  name: string',
        '  url: url',
        '',
      ].join('\n'),
    );
    expect(parseSchema(yaml).jsonSchema).toStrictEqual(jsonSchema);
  });

  it('falls back to a field list for names, descriptions on objects and enums', () => {
    const { jsonSchema } = parseSchema({
      name: 'product',
      fields: [
        { name: 'currency', enum: ['EUR', 'USD'], required: true },
        { name: 'author', description: 'Who wrote it', properties: [{ name: 'name' }] },
        { name: 'title', description: 'string' },
      ],
    });
    const yaml = schemaToYaml(jsonSchema);
    expect(yaml.startsWith('name: product\nfields:\n')).toBe(true);
    expect(parseSchema(yaml).jsonSchema).toStrictEqual(jsonSchema);
  });

  it('falls back to JSON Schema for constraints', () => {
    const { jsonSchema } = parseSchema({
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 }, u: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
    });
    const yaml = schemaToYaml(jsonSchema);
    expect(yaml.startsWith('type: object\n')).toBe(true);
    expect(parseSchema(yaml).jsonSchema).toStrictEqual(jsonSchema);
  });
});
