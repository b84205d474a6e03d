import { convertHtml } from '@app/content';
import type { JsonSchemaObject } from '@app/schema';
import { allQuotes } from '../../../../test/fixtures/site/quotes-data';
import { quotesPage } from '../../../../test/fixtures/site/render';
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
