import type { CollectedPages, PagePlan } from '@app/extraction';
import type { LoadedPage } from '@app/pages';
import type { JobContext } from './job-contexts';
import { PagePagination, pagesText } from './page-pagination';

const page = (url: string, markdown: string) => ({ fetch: { url }, content: { markdown } }) as unknown as LoadedPage;
const context = (input: Record<string, unknown>) =>
  ({ input: { schema: { type: 'object' }, ...input } }) as unknown as Pick<JobContext, 'input'>;
const MODEL = { kind: 'model' } as PagePlan;
const PAGINATE = { selector: 'li.next > a', max_pages: 3 };

describe('PagePagination for a monitor page (docs/monitors.md "Paginated lists")', () => {
  it('reads a page over its next pages only when it is extracted with a model plan and a schema, and not from the archive', () => {
    expect(PagePagination.readsPages(context({ paginate: PAGINATE }), MODEL)).toBe(true);
    expect(PagePagination.readsPages(context({ paginate: PAGINATE }), null)).toBe(false);
    expect(PagePagination.readsPages(context({ paginate: PAGINATE }), { kind: 'formats' } as PagePlan)).toBe(false);
    expect(PagePagination.readsPages(context({ paginate: PAGINATE, schema: null }), MODEL)).toBe(false);
    expect(PagePagination.readsPages(context({}), MODEL)).toBe(false);
    expect(PagePagination.readsPages(context({ paginate: PAGINATE, source: { kind: 'archive', job_id: 'j' } }), MODEL)).toBe(false);
  });

  it('hashes the text of every page in order: a change on a next page changes it, the first page alone does not say', () => {
    const first = page('http://shop.test/1', '| SKU-1 | $3.00 |');
    const ahead = (two: string): CollectedPages => ({
      pages: [{ url: 'http://shop.test/2', page: page('http://shop.test/2', two) }],
      stopped: { reason: 'no_next_link' },
    });
    expect(pagesText(first, ahead('| SKU-2 | $4.00 |'))).toBe('| SKU-1 | $3.00 |\n\n| SKU-2 | $4.00 |');
    expect(pagesText(first, ahead('| SKU-2 | $5.00 |'))).not.toBe(pagesText(first, ahead('| SKU-2 | $4.00 |')));
    expect(pagesText(first, { pages: [], stopped: { reason: 'no_next_link' } })).toBe('| SKU-1 | $3.00 |');
  });
});
