import { parseSchema } from '@app/schema';
import { authorPage, quotesPage } from '../../../test/fixtures/site/render';
import { allAuthors, quotesForPage } from '../../../test/fixtures/site/quotes-data';
import { analyzePage } from './analyze-page';
import { suggestSchemaFromStructure } from './schema-suggestion';
import type { DetectedElement } from './types';

const BASE = 'http://127.0.0.1:4000';

function itemProperties(yaml: string, list: string): Record<string, unknown> {
  const parsed = parseSchema(yaml);
  const prop = (parsed.jsonSchema.properties as Record<string, any>)[list];
  expect(prop).toBeDefined();
  return (prop.items as { properties: Record<string, unknown> }).properties;
}

describe('suggestSchemaFromStructure', () => {
  it('quotes listing → quotes: [{text, author, author_url, tags}] + next_page, valid for parseSchema', () => {
    const h = analyzePage({ html: quotesPage('Quotes to Scrape', quotesForPage(1), '', 1, true), url: `${BASE}/`, links: [] });
    expect(h.suggestedSchema).toBe('quotes: [{text: string, author: string, author_url: url, tags: [string]}]\nnext_page: url\n');
    const props = itemProperties(h.suggestedSchema, 'quotes');
    expect(Object.keys(props)).toEqual(expect.arrayContaining(['text', 'author', 'tags']));
    expect(Object.keys(parseSchema(h.suggestedSchema).jsonSchema.properties ?? {})).toContain('next_page');
  });

  it('author detail page → fields from the heading and the label/value pairs', () => {
    const h = analyzePage({ html: authorPage(allAuthors()[0]), url: `${BASE}/author/${allAuthors()[0].slug}/`, links: [] });
    expect(h.suggestedSchema).toBe('title: string\nborn: string\ndescription: string\n');
    expect(parseSchema(h.suggestedSchema).fieldCount).toBe(3);
  });

  it('maps field kinds to schema types and plural list names', () => {
    const el: DetectedElement = {
      name: 'product_card',
      type: 'card',
      description: '',
      count: 12,
      selector: 'div.product-card',
      score: 1,
      textShare: 0.8,
      avgTextChars: 40,
      fields: [
        { name: 'title', kind: 'string', selector: 'h3 a', presence: 1, sample: 'x' },
        { name: 'url', kind: 'url', selector: 'h3 a', presence: 1, sample: 'https://x/' },
        { name: 'price', kind: 'number', selector: 'span.price', presence: 1, sample: '$1' },
        { name: 'image', kind: 'image', selector: 'img', presence: 1, sample: 'https://x/i.jpg' },
        { name: 'released', kind: 'date', selector: 'time', presence: 1, sample: '2024-01-01' },
        { name: 'labels', kind: 'list', selector: 'a.label', presence: 1, sample: 'a, b' },
      ],
    };
    const yaml = suggestSchemaFromStructure({ repeated: [el], pageType: 'listing' });
    expect(yaml).toBe('products: [{title: string, url: url, price: number, image: url, released: date, labels: [string]}]\n');
    expect(parseSchema(yaml).fieldCount).toBe(7);
  });

  it('product, article and empty fallbacks all parse', () => {
    for (const pageType of ['product', 'article', 'detail', 'listing', 'home', 'search', 'other'] as const) {
      const yaml = suggestSchemaFromStructure({
        repeated: [],
        pageType,
        metadata: { jsonLd: [{ '@type': 'Product', sku: '1', brand: 'B' }] },
      });
      expect(() => parseSchema(yaml)).not.toThrow();
    }
    expect(suggestSchemaFromStructure({ repeated: [], pageType: 'product' })).toMatch(/^name: string\nprice: number\n/);
    expect(suggestSchemaFromStructure({ repeated: [], pageType: 'article' })).toMatch(/^title: string\nauthor: string\npublished: date\n/);
  });

  it('renames reserved top-level names so the shorthand stays a shorthand', () => {
    const yaml = suggestSchemaFromStructure({
      repeated: [],
      pageType: 'detail',
      detailFields: [
        { name: 'type', kind: 'string', label: 'Type', sample: 'object' },
        { name: 'fields', kind: 'string', label: 'Fields', sample: 'x' },
      ],
    });
    expect(yaml).toBe('type_value: string\nfields_value: string\n');
    expect(parseSchema(yaml).form).toBe('shorthand');
  });
});
