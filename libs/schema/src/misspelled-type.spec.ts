import { parseSchema } from './parse-schema';
import { misspelledTypeName } from './type-names';

describe('a shorthand value that looks like a misspelled type name (issue 40; libs/schema/README.md "Shorthand")', () => {
  it('stays a described text field, as the schema language says, with a warning at the field naming the type', () => {
    const parsed = parseSchema({ price: 'numbr', title: 'strng', tags: ['strng'], seller: { since: 'daet' } });
    expect(parsed.jsonSchema.properties!.price).toMatchObject({ type: ['string', 'null'], description: 'numbr' });
    expect(parsed.warnings).toEqual([
      {
        code: 'schema_type_misspelled',
        message: '"numbr" is not a type name, so this is a text field described as "numbr"; did you mean number?',
        location: 'body.schema.price',
      },
      expect.objectContaining({ location: 'body.schema.title', message: expect.stringContaining('did you mean string?') }),
      expect.objectContaining({ location: 'body.schema.tags[0]', message: expect.stringContaining('did you mean string?') }),
      expect.objectContaining({ location: 'body.schema.seller.since', message: expect.stringContaining('did you mean date?') }),
    ]);
  });

  it.each([
    ['numbr', 'number'],
    ['Strng', 'string'],
    ['nubmer', 'number'],
    ['integr', 'integer'],
    ['boolen', 'boolean'],
    ['emial', 'email'],
    ['datetme', 'datetime'],
    ['ulr', 'url'],
  ])('%s → %s', (value, type) => {
    expect(misspelledTypeName(value)).toBe(type);
  });

  it.each(['name', 'title', 'the price', 'price in euros', 'author name', 'text', 'number', 'int', 'sku', 'a'])(
    'leaves %j alone (a real description, or a type name)',
    (value) => {
      expect(misspelledTypeName(value)).toBeUndefined();
    },
  );

  it('has no warnings for a clean schema', () => {
    expect(parseSchema({ price: 'number', title: 'the title' }).warnings).toEqual([]);
  });
});
