import { crawlCounters, type JobRecord } from './job.types';

const job = (fields: Partial<JobRecord>): JobRecord =>
  ({ page_count: 7, token_usage_input: 700, token_usage_output: 70, ...fields }) as JobRecord;

describe('crawlCounters', () => {
  it('shows the counters as the crawl stored them', () => {
    expect(
      crawlCounters(
        job({
          pages_by_method: { model: 2, selectors: 4, mixed: 1 },
          model_calls: 4,
          model_calls_by_kind: { full: 2, partial: 1 },
          tokens_by_call_kind: { full: { input: 200, output: 20 }, partial: { input: 30 } },
          duplicates: { near: 3, canonical: 1 },
          model_calls_saved: 4,
        }),
      ),
    ).toEqual({
      pages_by_method: { model: 2, selectors: 4, mixed: 1, scrape: 0 },
      model_calls: 4,
      model_calls_by_kind: { full: 2, partial: 1 },
      tokens_by_call_kind: { full: { input: 200, output: 20 }, partial: { input: 30, output: 0 } },
      duplicates: { canonical: 1, exact: 0, near: 3, redirect: 0 },
      model_calls_saved: 4,
    });
  });

  it('reads a crawl stored before learned extraction as full model calls on every page', () => {
    expect(crawlCounters(job({}))).toEqual({
      pages_by_method: { model: 7, selectors: 0, mixed: 0, scrape: 0 },
      model_calls: 7,
      model_calls_by_kind: { full: 7, partial: 0 },
      tokens_by_call_kind: { full: { input: 700, output: 70 }, partial: { input: 0, output: 0 } },
      duplicates: { canonical: 0, exact: 0, near: 0, redirect: 0 },
      model_calls_saved: 0,
    });
    // Stored before mixed pages and call kinds: the selectors pages made no call, the model pages a full one each.
    expect(crawlCounters(job({ pages_by_method: { model: 3, selectors: 4 }, model_calls: 3 }))).toMatchObject({
      pages_by_method: { model: 3, selectors: 4, mixed: 0 },
      model_calls_by_kind: { full: 3, partial: 0 },
    });
  });
});
