import { convertHtml } from '@app/content';
import type { JsonSchemaObject } from '@app/schema';
import { listPage, LIST_SCHEMA } from '../../../../test/fixtures/long-lists';
import { allQuotes } from '../../../../test/fixtures/site/quotes-data';
import { quotesPage } from '../../../../test/fixtures/site/render';
import { itemsReports } from './list-merge';
import { pageLists } from './list-paths';
import { wholePageCounts, withWholePage } from './whole-page';

const QUOTES: JsonSchemaObject = {
  type: 'object',
  properties: {
    quotes: { type: 'array', items: { type: 'object', properties: { text: { type: 'string' }, author: { type: 'string' } } } },
  },
};
const convert = (html: string, mode: 'main' | 'full') => convertHtml({ html, url: 'http://lists.test/', mode }).markdown;

describe('a list the main content cuts, counted on the whole page', () => {
  it('the 100-quote page: the main content holds part of the run; the whole page names all 100, and the list is not complete', () => {
    const html = quotesPage('Quotes', allQuotes(), '/page/', 1, false);
    const main = convert(html, 'main');
    const whole = convert(html, 'full');
    const lists = pageLists(main, QUOTES);
    const read = lists[0].group!.items.length;
    // What the main content kept of the page's 100 quotes (the bench's row before: 58, reported complete).
    expect(read).toBeLessThan(100);
    const counts = wholePageCounts(main, whole, lists);
    expect(counts).toEqual(new Map([['quotes', 100]]));
    const data = { quotes: Array.from({ length: read }, (_, i) => ({ text: `q${i}` })) };
    const { items, warnings } = withWholePage(itemsReports(data, lists, new Map(), false), counts);
    expect(items).toEqual([{ path: 'quotes', expected: 100, extracted: read, chunks: 1, complete: false }]);
    expect(warnings).toEqual([
      expect.objectContaining({
        code: 'list_incomplete',
        location: 'body.schema.quotes',
        message: expect.stringMatching(
          new RegExp(`lists 100 items, the main content the model read holds ${read} of them.*only_main_content: false`),
        ),
      }),
    ]);
  });

  it('changes nothing when the main content holds the whole list', () => {
    const html = listPage('cards', 40);
    const main = convert(html, 'main');
    const lists = pageLists(main, LIST_SCHEMA);
    expect(lists[0].group?.items).toHaveLength(40);
    const counts = wholePageCounts(main, convert(html, 'full'), lists);
    expect(counts.size).toBe(0);
    const reports = itemsReports({ products: new Array(40).fill({}) }, lists, new Map(), false);
    expect(withWholePage(reports, counts)).toEqual({ items: reports, warnings: [] });
  });

  it('a longer list elsewhere on the whole page that does not hold the read list is not taken for it', () => {
    const read =
      '# Picks\n\n- Alpha widget of the week, the first pick\n- Beta widget of the week, the second pick\n- Gamma widget of the week, the third pick';
    const whole = `${Array.from({ length: 9 }, (_, i) => `- Menu entry number ${i} of the site navigation`).join('\n')}\n\n${read}`;
    const schema: JsonSchemaObject = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } };
    expect(wholePageCounts(read, whole, pageLists(read, schema)).size).toBe(0);
  });
});
