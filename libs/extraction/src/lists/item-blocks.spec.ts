import { convertHtml } from '@app/content';
import { LIST_LAYOUTS, listPage, LIST_SCHEMA, TWO_LIST_SCHEMA } from '../../../../test/fixtures/long-lists';
import { allQuotes } from '../../../../test/fixtures/site/quotes-data';
import { quotesPage } from '../../../../test/fixtures/site/render';
import { itemGroups } from './item-blocks';
import { incompleteWarnings, itemsReports } from './list-merge';
import { listAt, listPaths, pageLists } from './list-paths';

function markdownOf(html: string): string {
  return convertHtml({ html, url: 'http://shop.test/', mode: 'main' }).markdown;
}

describe('item groups of a page', () => {
  it.each(LIST_LAYOUTS.flatMap((layout) => [20, 200].map((count) => [layout, count] as const)))(
    'counts every product of a %s page of %i',
    (layout, count) => {
      const markdown = markdownOf(listPage(layout, count));
      const [products] = pageLists(markdown, LIST_SCHEMA);
      expect(products.path).toBe('products');
      expect(products.group?.items.length).toBe(count);
      expect(products.contested).toBeUndefined();
      // Each item holds its own product and no other's.
      const third = products.group!.items[2];
      expect(markdown.slice(third.start, third.end)).toContain('No. 3');
      expect(markdown.slice(third.start, third.end)).not.toContain('No. 4');
    },
  );

  it('keeps a table header as the prefix every chunk repeats', () => {
    const markdown = markdownOf(listPage('table', 4));
    const [table] = itemGroups(markdown).filter((g) => g.kind === 'table');
    expect(table.prefix).toBe('| Name | SKU | Price |\n|---|---|---|\n');
    expect(table.items).toHaveLength(4);
  });

  it('tells two lists of one page apart by the item fields each names', () => {
    for (const layout of LIST_LAYOUTS) {
      const markdown = markdownOf(listPage(layout, 12, { withArticles: 3 }));
      const lists = pageLists(markdown, TWO_LIST_SCHEMA);
      expect(Object.fromEntries(lists.map((l) => [l.path, l.group?.items.length]))).toEqual({ products: 12, articles: 3 });
      // Each list's rival is the other list: neither count is uncertain for it.
      expect(lists.map((l) => l.contested)).toEqual([undefined, undefined]);
    }
  });

  it('counts the quotes of a quotes page: items of two paragraphs each (the quote, its tags)', () => {
    const markdown = markdownOf(quotesPage('Quotes', allQuotes().slice(0, 10), '/page/', 1, true));
    const schema = {
      type: 'object' as const,
      properties: {
        quotes: { type: 'array' as const, items: { type: 'object' as const, properties: { text: { type: 'string' as const } } } },
      },
    };
    expect(pageLists(markdown, schema)[0].group?.items).toHaveLength(10);
  });

  it('counts a table whose items take two rows each (a title row, a byline row) once per item', () => {
    const rows = Array.from({ length: 6 }, (_, i) => `| ${i + 1}. | Story ${i + 1} (site.test) |\n| | ${i + 1} points by someone |`);
    // A headless table: the conversion makes its first row the header, so the first item opens above the separator.
    const [head, ...rest] = rows.join('\n').split('\n');
    const markdown = `Stories\n\n${[head, '|---|---|', ...rest].join('\n')}\n| | More |\n`;
    const [table] = itemGroups(markdown).filter((g) => g.kind === 'table');
    expect(table.items).toHaveLength(6);
    expect(table.prefix).toBe('');
    expect(markdown.slice(table.items[0].start, table.items[0].end)).toBe(
      '| 1. | Story 1 (site.test) |\n|---|---|\n| | 1 points by someone |',
    );
    expect(markdown.slice(table.items[5].start, table.items[5].end)).toBe('| 6. | Story 6 (site.test) |\n| | 6 points by someone |');
  });

  it('counts a table of one row per item by its rows, empty cells or not', () => {
    const rows = Array.from({ length: 6 }, (_, i) => `| Item ${i} | ${i % 2 === 0 ? '' : 'note'} | ${i} |`);
    const markdown = `| Name | Note | N |\n|---|---|---|\n${rows.join('\n')}\n`;
    const [table] = itemGroups(markdown).filter((g) => g.kind === 'table');
    expect(table.items).toHaveLength(6);
    expect(table.prefix).toBe('| Name | Note | N |\n|---|---|---|\n');
  });

  it('keeps a card whose first line opens otherwise in its run of sections, and ends the run at a section of another shape', () => {
    const card = (name: string, first: string) => `## ${name}\n\n${first}\n\n$12.00`;
    const markdown = [
      card('Sayuri', 'Junmai Nigori'),
      card('Superior', 'Junmai Ginjo'),
      card('Plum Wine', '$19.00'),
      card('Awa Yuki', 'Sparkling'),
      card('Season: spring', 'Note: a label opens this one'),
      card('Tanrei', 'Junmai'),
      '## Staff picks\n\n- Sayuri\n- Tanrei',
    ].join('\n\n');
    const runs = itemGroups(markdown).filter((g) => g.kind === 'sections');
    // One odd card between two of the run's shape stays; the list section after the last card ends the run.
    expect(runs.map((g) => g.items.length)).toEqual([6]);
  });

  it('counts items that open with a two-line paragraph (title and byline), whether the title is a link or not', () => {
    const post = (i: number) =>
      `${i % 3 === 1 ? `Post ${i}` : `[Post ${i}](http://blog.test/${i})`}, ${i} March 2026\nAuthor ${i}\n\nWhat post ${i} is about.`;
    const markdown = `# The Blog\n\n${Array.from({ length: 8 }, (_, i) => post(i)).join('\n\n')}\n`;
    const [list] = pageLists(markdown, LIST_SCHEMA);
    expect(list.group?.items).toHaveLength(8);
    expect(markdown.slice(list.group!.items[1].start, list.group!.items[1].end)).toBe(
      'Post 1, 1 March 2026\nAuthor 1\n\nWhat post 1 is about.',
    );
  });

  it('finds no list in running text, nor in fewer than three items', () => {
    const prose = '# A story\n\nIt was a dark night.\n\nThe rain fell on the roof, all night long.\n\nIn the morning the sun rose.';
    expect(itemGroups(prose)).toEqual([]);
    expect(itemGroups('- one\n- two\n\nand a paragraph')).toEqual([]);
  });

  it('counts the top-level items of a nested list, not its sub-items', () => {
    const markdown = '- a\n  - a1\n  - a2\n- b\n  - b1\n- c\n- d';
    const [list] = itemGroups(markdown).filter((g) => g.kind === 'list');
    expect(list.items.map((i) => markdown.slice(i.start, i.end))).toEqual(['- a\n  - a1\n  - a2', '- b\n  - b1', '- c', '- d']);
  });
});

describe('an uncertain count', () => {
  const schema = LIST_SCHEMA;
  const long = (n: number) => `A paragraph about thing ${n} that goes on for a while, ${'with more words '.repeat(8)}.`;
  const sections = (n: number) => Array.from({ length: n }, (_, i) => `## Thing ${i + 1}\n\n${long(i)}`).join('\n\n');

  it('is contested when a larger run of items with text of its own is beside the group counted', () => {
    const links = Array.from({ length: 12 }, (_, i) => `- [Another thing ${i + 1}, with a line of its own](http://shop.test/${i})`);
    const [list] = pageLists(`# Shop\n\n${sections(4)}\n\n${links.join('\n')}\n`, schema);
    expect(list.group?.items).toHaveLength(4);
    expect(list.contested).toBe(true);
  });

  it('is not contested by a menu of short links, and is by a rival run of about its weight', () => {
    const menu = ['Home', 'Shop', 'About', 'Blog', 'Help', 'Cart', 'Login'].map((m) => `- [${m}](http://shop.test/${m})`).join('\n');
    expect(pageLists(`${menu}\n\n# Shop\n\n${sections(5)}\n`, schema)[0].contested).toBeUndefined();
    const rival = Array.from({ length: 4 }, (_, i) => `- ${long(i)}`).join('\n');
    expect(pageLists(`# Shop\n\n${sections(5)}\n\n# Elsewhere\n\n${rival}\n`, schema)[0].contested).toBe(true);
  });

  it('is contested when the group counted holds little of the page', () => {
    const prose = Array.from({ length: 12 }, (_, i) => `${long(i)} ${long(i + 1)}`).join('\n\n');
    const small = Array.from({ length: 3 }, (_, i) => `- Item ${i}`).join('\n');
    expect(pageLists(`# Page\n\n${prose}\n\n${small}\n`, schema)[0].contested).toBe(true);
  });

  it('never makes the list complete: null with expected_uncertain when the answer has the count, false when fewer', () => {
    const markdown = `# Shop\n\n${sections(4)}\n\n${Array.from({ length: 12 }, (_, i) => `- [Another thing ${i + 1}, with a line of its own](http://x.test/${i})`).join('\n')}\n`;
    const lists = pageLists(markdown, schema);
    const [all] = itemsReports({ products: [{}, {}, {}, {}] }, lists, new Map(), false);
    expect(all).toEqual({ path: 'products', expected: 4, extracted: 4, chunks: 1, complete: null, expected_uncertain: true });
    const [some] = itemsReports({ products: [{}, {}] }, lists, new Map(), false);
    expect(some.complete).toBe(false);
    expect(incompleteWarnings([some])[0].message).toContain('a count another repeated structure of the page competes with');
  });
});

describe('list paths of a schema', () => {
  it('are the root list or top-level lists of objects, with their item fields', () => {
    expect(listPaths(LIST_SCHEMA)).toEqual([{ path: 'products', keys: ['name', 'sku', 'price'] }]);
    expect(listPaths({ type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } })).toEqual([
      { path: '$', keys: ['a'] },
    ]);
    expect(listPaths({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } })).toEqual([]);
  });

  it('reads the list at a path of an answer', () => {
    expect(listAt({ products: [1, 2] }, 'products')).toEqual([1, 2]);
    expect(listAt([1], '$')).toEqual([1]);
    expect(listAt({ products: null }, 'products')).toBeUndefined();
  });
});
