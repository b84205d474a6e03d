import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CliUsageError } from './errors';
import { readSchemaOption } from './schema-input';

const dir = mkdtempSync(join(tmpdir(), 'gleaner-schema-'));
const none = Readable.from([]);

describe('readSchemaOption', () => {
  it('reads JSON and YAML files', async () => {
    writeFileSync(join(dir, 's.json'), '{"title": "string"}');
    writeFileSync(join(dir, 's.yaml'), 'title: string\ntags: [string]\n');
    await expect(readSchemaOption(join(dir, 's.json'), none)).resolves.toEqual({ title: 'string' });
    await expect(readSchemaOption(join(dir, 's.yaml'), none)).resolves.toEqual({ title: 'string', tags: ['string'] });
  });

  it('takes inline JSON or YAML, and stdin with "-"', async () => {
    await expect(readSchemaOption('{"a": "number"}', none)).resolves.toEqual({ a: 'number' });
    await expect(readSchemaOption('quotes: [{text: string}]', none)).resolves.toEqual({ quotes: [{ text: 'string' }] });
    await expect(readSchemaOption('-', Readable.from(['fields:\n', '  - {name: a}\n']))).resolves.toEqual({ fields: [{ name: 'a' }] });
  });

  it('reports a missing file, broken text and a bare word as usage errors', async () => {
    await expect(readSchemaOption('nope/schema.yaml', none)).rejects.toThrow(
      new CliUsageError('--schema: no such file "nope/schema.yaml" (give a file, "-" for stdin, or the schema inline as JSON or YAML)'),
    );
    await expect(readSchemaOption('a: [b', none)).rejects.toThrow(/the inline schema is neither valid JSON nor valid YAML: Flow sequence/);
    await expect(readSchemaOption('product', none)).rejects.toThrow(/"product" is not a file, and not a JSON or YAML schema/);
    writeFileSync(join(dir, 'empty.yaml'), '');
    await expect(readSchemaOption(join(dir, 'empty.yaml'), none)).rejects.toThrow(/holds nothing, not a schema object/);
  });
});
