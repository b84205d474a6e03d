import { convertHtml } from '@app/content';
import { labelledHtml, loadLabels, REAL_SCHEMA } from '../../../../test/fixtures/wcxb-lists';
import { pageLists } from './list-paths';

/**
 * The expected count on 31 real listing and collection pages whose items were counted by hand
 * (test/fixtures/corpus/wcxb-lists): precision and recall of the count, summed over the pages, as `npm run
 * bench:lists` reports them. The floors are today's figures (docs/long-lists.md "Benchmark"): a change to the
 * counting that loses pages fails here; one that gains should raise them.
 */
describe('item counts on hand-labelled real pages', () => {
  const rows = loadLabels().map((label) => {
    const markdown = convertHtml({ html: labelledHtml(label), url: label.url, mode: 'full' }).markdown;
    const [list] = pageLists(markdown, REAL_SCHEMA);
    const group = list.group;
    const text = group ? markdown.slice(group.items[0].start, group.items[group.items.length - 1].end) : '';
    const plain = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
    return {
      page: label.file,
      labelled: label.items,
      expected: group?.items.length ?? 0,
      // The group counted is the page's main list (it holds the labelled first item), not a menu of the same size.
      isList: group !== null && plain(text).includes(plain(label.first).slice(0, 24)),
      contested: list.contested === true,
    };
  });

  it('has at least 30 labelled pages', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it('counts the main list with precision >= 0.959 and recall >= 0.844 of the labelled items', () => {
    const right = rows.reduce((n, r) => n + (r.isList ? Math.min(r.expected, r.labelled) : 0), 0);
    const counted = rows.reduce((n, r) => n + r.expected, 0);
    const labelled = rows.reduce((n, r) => n + r.labelled, 0);
    expect(right / counted).toBeGreaterThanOrEqual(0.959);
    expect(right / labelled).toBeGreaterThanOrEqual(0.844);
  });

  it('says the count is uncertain on every page where it counts fewer items than the page has or another group', () => {
    // An answer with an uncertain count is never `complete: true` (list-merge.ts): no page is called complete that is not.
    // (A page without a count, expected 0 here, is `complete: null` anyway.)
    const short = rows.filter((r) => r.expected > 0 && (r.expected < r.labelled || !r.isList));
    expect(short.length).toBeGreaterThan(0);
    expect(short.filter((r) => !r.contested).map((r) => r.page)).toEqual([]);
    // And it is certain on the pages it counts exactly (an uncertain count costs those answers their `complete: true`).
    expect(rows.filter((r) => r.isList && r.expected === r.labelled && r.contested).map((r) => r.page)).toEqual([]);
  });

  it('counts exactly the pages it counted exactly when labelled', () => {
    const exact = rows.filter((r) => r.isList && r.expected === r.labelled).map((r) => r.page);
    expect(exact).toEqual(
      expect.arrayContaining(
        [
          '0082',
          '0175',
          '0274',
          '0282',
          '0597',
          '1371',
          '2900',
          '2911',
          '2916',
          '3013',
          '4054',
          '4061',
          '4120',
          '4122',
          '4139',
          '4247',
          '4343',
          '4354',
          '4361',
          '4378',
          '4508',
          '4533',
          '4609',
          '4627',
        ].map((id) => `html/${id}.html.gz`),
      ),
    );
  });
});
