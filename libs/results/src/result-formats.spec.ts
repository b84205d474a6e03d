import { parse as parseYaml } from 'yaml';
import { AppError } from '@app/core';
import { chooseFormat, negotiateFormat, serializeAll, serializeItems, type ResultFormat } from './result-formats';

async function render(items: unknown[], format: ResultFormat): Promise<string> {
  async function* source() {
    yield* items;
  }
  let out = '';
  for await (const chunk of serializeItems(source(), format)) out += chunk;
  return out;
}

describe('result formats', () => {
  it('negotiates Accept by q, then specificity, then server order', () => {
    expect(negotiateFormat(undefined)).toBe('json');
    expect(negotiateFormat('*/*')).toBe('json');
    expect(negotiateFormat('application/*')).toBe('json');
    expect(negotiateFormat('text/*')).toBe('yaml');
    expect(negotiateFormat('application/x-ndjson, */*')).toBe('jsonl');
    expect(negotiateFormat('APPLICATION/YAML')).toBe('yaml');
    expect(negotiateFormat('application/json;q=0.1, application/jsonl;q=0.5')).toBe('jsonl');
    expect(() => negotiateFormat('text/html')).toThrow(AppError);
    expect(() => negotiateFormat('*/*;q=0')).toThrow(expect.objectContaining({ slug: 'not-acceptable' }));
  });

  it('lets format= win and refuses unknown formats with a 406', () => {
    expect(chooseFormat('yaml', 'application/json')).toBe('yaml');
    expect(chooseFormat('JSONL', undefined)).toBe('jsonl');
    expect(() => chooseFormat('csv', '*/*')).toThrow(expect.objectContaining({ slug: 'not-acceptable' }));
  });

  it('serialises items one by one into valid documents', async () => {
    const items = [{ a: 1, s: 'x: y\n- z' }, [1, 2], 'yes', null, { nested: { deep: [{ k: '#' }] } }];
    expect(JSON.parse(await render(items, 'json'))).toEqual(items);
    expect(
      (await render(items, 'jsonl'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(items);
    expect(parseYaml(await render(items, 'yaml'))).toEqual(items);
    expect(JSON.parse(await render([], 'json'))).toEqual([]);
    expect(await render([], 'jsonl')).toBe('');
    expect(parseYaml(await render([], 'yaml'))).toEqual([]);
  });

  it('serialises items already in memory to the very text of the streamed form', async () => {
    const lists = [[], [{ a: 1 }], [{ a: 1, s: 'x: y\n- z' }, [1, 2], 'yes', null, undefined, { nested: { deep: [{ k: '#' }] } }]];
    for (const format of ['json', 'jsonl', 'yaml'] as const) {
      for (const items of lists) expect(serializeAll(items, format)).toBe(await render(items, format));
    }
    expect(serializeAll([{ a: 1 }, null], 'json')).toBe('[{"a":1},null]\n');
  });
});
