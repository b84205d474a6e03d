import { convertHtml } from '@app/content';
import { parsePage, planFields, runProgram, type ExtractionProgram, type FieldRule } from '@app/learned';
import type { JsonSchemaObject } from '@app/schema';
import { allQuotes } from '../../../../test/fixtures/site/quotes-data';
import { quotesPage } from '../../../../test/fixtures/site/render';
import { LIST_SCHEMA, listPage, product } from '../../../../test/fixtures/long-lists';
import { programListReport } from './program-lists';

const QUOTES: JsonSchemaObject = {
  type: 'object',
  properties: {
    quotes: { type: 'array', items: { type: 'object', properties: { text: { type: 'string' }, author: { type: 'string' } } } },
  },
};

describe("a learned program's lists, checked against the page's count", () => {
  const quotes = allQuotes().slice(0, 30);
  const markdown = convertHtml({ html: quotesPage('Quotes', quotes, '/page/', 1, true), url: 'http://q.test/', mode: 'full' }).markdown;
  const answer = (n: number) => ({ quotes: quotes.slice(0, n).map((q) => ({ text: q.text, author: q.author })) });

  it('every item the page holds: complete, no model answer', () => {
    expect(programListReport(markdown, QUOTES, answer(30))).toEqual({
      items: [{ path: 'quotes', expected: 30, extracted: 30, chunks: 0, complete: true }],
      warnings: [],
    });
  });

  it('a selector that matched fewer items than the page holds: incomplete, with list_incomplete', () => {
    const report = programListReport(markdown, QUOTES, answer(21))!;
    expect(report.items).toEqual([{ path: 'quotes', expected: 30, extracted: 21, chunks: 0, complete: false }]);
    expect(report.warnings).toEqual([
      expect.objectContaining({
        code: 'list_incomplete',
        location: 'body.schema.quotes',
        message: expect.stringContaining('lists 30 items and the answer has 21'),
      }),
    ]);
  });

  it('nothing for a schema without a list of objects', () => {
    expect(programListReport(markdown, { type: 'object', properties: { title: { type: 'string' } } }, { title: 'x' })).toBeNull();
  });
});

describe("a learned program's list of objects over hundreds of items, checked against the page's count", () => {
  // The rule the learner finds for the cards catalogue (libs/learned/src/learner-long-lists.spec.ts).
  const text = { kind: 'text' as const };
  const rule = (selector: string): FieldRule => ({
    field: 'products',
    selector,
    pick: 'all',
    source: text,
    steps: [],
    parse: 'string',
    items: [
      { field: 'name', selector: 'li.card > h3', pick: 'first', source: text, steps: [], parse: 'string' },
      {
        field: 'sku',
        selector: 'li.card > p',
        pick: 'first',
        source: text,
        steps: [{ op: 'strip-prefix', value: 'SKU: ' }],
        parse: 'string',
      },
      { field: 'price', selector: 'li.card > p:nth-of-type(2)', pick: 'first', source: text, steps: [], parse: 'number' },
    ],
  });
  const program = (selector: string): ExtractionProgram => ({ id: 'prg_cards', version: 1, rules: [rule(selector)] });
  const html = listPage('cards', 1000);
  const page = parsePage('http://lists.test/cards/1000', html);
  const markdown = convertHtml({ html, url: page.url, mode: 'full' }).markdown;
  const fields = planFields(LIST_SCHEMA).fields;

  it('all 1,000 items read by the program: expected 1,000, complete', () => {
    const data = runProgram(program('li.card'), page, fields);
    expect((data.products as unknown[]).slice(-1)).toEqual([product(999)]);
    expect(programListReport(markdown, LIST_SCHEMA, data)).toEqual({
      items: [{ path: 'products', expected: 1000, extracted: 1000, chunks: 0, complete: true }],
      warnings: [],
    });
  });

  it('an item selector that misses items (the first 700 only): incomplete, with list_incomplete', () => {
    const report = programListReport(markdown, LIST_SCHEMA, runProgram(program('li.card:nth-child(-n+700)'), page, fields))!;
    expect(report.items).toEqual([{ path: 'products', expected: 1000, extracted: 700, chunks: 0, complete: false }]);
    expect(report.warnings.map((w) => w.code)).toEqual(['list_incomplete']);
  });
});
