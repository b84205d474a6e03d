import { Usage } from '@app/core';
import type { ExtractionMade, PageExtraction } from '../page/page-extraction';
import { mergePages, type PagedPage } from './paged-merge';

const LISTS = [{ path: 'products', keys: ['sku', 'name'] }];

function page(
  url: string,
  skus: string[],
  opts: { expected?: number | null; complete?: boolean | null; title?: string; uncertain?: boolean } = {},
): PagedPage {
  const items = skus.map((sku) => ({ sku, name: `Item ${sku}` }));
  const extraction: PageExtraction<ExtractionMade> = {
    data: { title: opts.title ?? `Catalogue at ${url}`, products: items },
    made: { method: 'model' },
    model: { provider: 'openai', model: 'gpt-4o-mini' },
    usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.001, llmCostUsd: 0.001 },
    provenance: {
      fields: Object.fromEntries([
        ['title', { source: 'model', grounded: true } as never],
        ...items.map((_, i) => [`products[${i}].sku`, { source: 'model', grounded: true, page: url } as never]),
      ]),
      ungrounded_fields: 1,
    },
    completeness: {
      items: [
        {
          path: 'products',
          expected: opts.expected === undefined ? skus.length : opts.expected,
          extracted: skus.length,
          chunks: 1,
          complete: opts.complete === undefined ? true : opts.complete,
          ...(opts.uncertain ? { expected_uncertain: true as const } : {}),
        },
      ],
    },
    warnings: [],
  };
  return { url, extraction };
}

describe('mergePages', () => {
  it('gathers each list over the pages in order, other fields from the first page, usage added', () => {
    const merged = mergePages([page('p1', ['a', 'b']), page('p2', ['c', 'd']), page('p3', ['e'])], LISTS, { reason: 'no_next_link' });
    expect(merged.data).toEqual({
      title: 'Catalogue at p1',
      products: ['a', 'b', 'c', 'd', 'e'].map((sku) => ({ sku, name: `Item ${sku}` })),
    });
    expect(merged.usage).toEqual({ inputTokens: 300, outputTokens: 30, costUsd: expect.closeTo(0.003), llmCostUsd: expect.closeTo(0.003) });
    expect(merged.completeness?.items).toEqual([{ path: 'products', expected: 5, extracted: 5, chunks: 3, complete: true }]);
    expect(merged.warnings).toEqual([]);
    expect(merged.pagination.pages).toEqual([
      { url: 'p1', items: { products: { from: 0, count: 2 } }, repeated: 0 },
      { url: 'p2', items: { products: { from: 2, count: 2 } }, repeated: 0 },
      { url: 'p3', items: { products: { from: 4, count: 1 } }, repeated: 0 },
    ]);
  });

  it("renumbers each value's provenance to its place in the merged list, and keeps the other fields' from the first page", () => {
    const merged = mergePages([page('p1', ['a', 'b']), page('p2', ['c'])], LISTS, { reason: 'no_next_link' });
    expect(Object.keys(merged.provenance!.fields!).sort()).toEqual(['products[0].sku', 'products[1].sku', 'products[2].sku', 'title']);
    expect(merged.provenance!.fields!['products[2].sku']).toMatchObject({ page: 'p2' });
    expect(merged.provenance!.ungrounded_fields).toBe(2);
  });

  it('drops an item equal to one an earlier page gave (a listing repeating its top item), and counts it', () => {
    const merged = mergePages([page('p1', ['a', 'b']), page('p2', ['b', 'c'])], LISTS, { reason: 'no_next_link' });
    expect((merged.data as { products: Array<{ sku: string }> }).products.map((p) => p.sku)).toEqual(['a', 'b', 'c']);
    expect(merged.pagination.pages[1]).toEqual({ url: 'p2', items: { products: { from: 2, count: 1 } }, repeated: 1 });
    expect(Object.keys(merged.provenance!.fields!)).toContain('products[2].sku');
    expect(Object.keys(merged.provenance!.fields!)).not.toContain('products[3].sku');
  });

  it('is incomplete, with one list_incomplete naming the page not read, when the pages stopped at max_pages', () => {
    const merged = mergePages([page('p1', ['a']), page('p2', ['b'])], LISTS, { reason: 'max_pages', next: 'p3' });
    expect(merged.completeness?.items?.[0]).toMatchObject({ expected: 2, extracted: 2, complete: false });
    expect(merged.warnings).toEqual([
      { code: 'list_incomplete', message: expect.stringContaining('max_pages (2) and p3 was not read'), location: 'body.schema.products' },
    ]);
  });

  it("is incomplete when a page's own list was, and unknown when a page had no count", () => {
    const short = mergePages([page('p1', ['a'], { expected: 3, complete: false }), page('p2', ['b'])], LISTS, { reason: 'no_next_link' });
    expect(short.completeness?.items?.[0]).toMatchObject({ expected: 4, extracted: 2, complete: false });
    const unknown = mergePages([page('p1', ['a'], { expected: null, complete: null }), page('p2', ['b'])], LISTS, {
      reason: 'no_next_link',
    });
    expect(unknown.completeness?.items?.[0]).toMatchObject({ expected: null, extracted: 2, complete: null });
  });

  it("is not complete, and its count uncertain, when a page's count was uncertain", () => {
    const merged = mergePages([page('p1', ['a']), page('p2', ['b'], { complete: null, uncertain: true })], LISTS, {
      reason: 'no_next_link',
    });
    expect(merged.completeness?.items?.[0]).toEqual({
      path: 'products',
      expected: 2,
      extracted: 2,
      chunks: 2,
      complete: null,
      expected_uncertain: true,
    });
  });

  it('merges a schema whose answer is the list itself', () => {
    const root = (url: string, skus: string[]): PagedPage => ({
      url,
      extraction: { data: skus.map((sku) => ({ sku })), made: { method: 'model' }, model: null, usage: Usage.NONE },
    });
    const merged = mergePages([root('p1', ['a']), root('p2', ['b'])], [{ path: '$', keys: ['sku'] }], { reason: 'no_next_link' });
    expect(merged.data).toEqual([{ sku: 'a' }, { sku: 'b' }]);
    expect(merged.pagination.pages[1].items).toEqual({ $: { from: 1, count: 1 } });
  });
});
