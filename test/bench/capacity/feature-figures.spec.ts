import { featureFigures, signed } from './feature-figures';

const base = { pages: 2002, store: { write_commands: 14.3, docs_written: 15.2 }, redis: { commands: 53.19 } };
const delta = (over: Record<string, unknown> = {}) => ({
  store: { write_commands: 2.46, docs_written: 2.42, read_commands: 1.85, commands: 4.32, docs_returned: 54, write_request_bytes: 1717 },
  store_commands_by_command_and_collection: {
    'find crawl_duplicates': 1,
    'insert crawl_duplicates': 1,
    'find jobs': 0.475,
    'find users': 0.04,
  },
  redis_commands: 1.44,
  redis_commands_by_name: { set: 0.97 },
  model_calls: 0,
  ...over,
});
const own = (over: Record<string, unknown> = {}) => ({
  collections: ['crawl_duplicates'],
  commands: 3,
  write_commands: 2,
  read_commands: 1,
  docs_written: 2,
  docs_returned: 52.5,
  write_request_bytes: 1500,
  by_command: {
    'createIndexes crawl_duplicates': 0.001,
    'insert crawl_duplicates': 1,
    'findAndModify crawl_duplicates': 1,
    'find crawl_duplicates': 1,
  },
  ...over,
});
const none = own({ collections: [], commands: 0, write_commands: 0, read_commands: 0, docs_written: 0, docs_returned: 0, by_command: {} });
const file = () => ({
  runs: {
    feature_base: { date: '2026-12-02T19:40:00.000Z', load_average_at_start: 12.4 },
    feature_dedup: { date: '2026-12-02T19:45:00.000Z', load_average_at_start: 14.6 },
    feature_auth: { date: '2026-12-02T19:50:00.000Z', error: 'reading the results: fetch failed\n  at …' },
  },
  summary: {
    base_crawl_seconds: 97.66,
    base,
    features: {
      feature_dedup: { what: 'dedup (`dedupe: "near"`)', crawl_seconds: 811.98, own_per_page: own(), run_delta_per_page: delta() },
      feature_lists: {
        what: 'long lists',
        crawl_seconds: 120.2,
        own_per_page: none,
        run_delta_per_page: delta({
          model_calls: 0.2,
          redis_commands: -0.02,
          store_commands_by_command_and_collection: { 'find jobs': 0.04 },
        }),
      },
    },
  },
});

describe("docs/capacity.md's per-feature lines (capacity-features.json)", () => {
  it("write one row per feature: its own commands per page, exactly, and the whole run's against the base run's", () => {
    const rows = String(featureFigures(file()).feature_rows).split('\n');
    expect(rows).toEqual([
      '| dedup (`dedupe: "near"`) | 2 | 1 | 2 | 52.5 | `insert crawl_duplicates` 1, `findAndModify crawl_duplicates` 1, `find crawl_duplicates` 1 | 0 | 0 | +2.46 writes, +1.44 Redis; 812 s (`find crawl_duplicates` +1, `insert crawl_duplicates` +1) |',
      '| long lists | 0 | 0 | 0 | 0 | none | 0 | +0.2 | +2.46 writes, −0.02 Redis; 120 s (none) |',
    ]);
  });

  it("give the base run's counts, the runs' day and their load", () => {
    const figures = featureFigures(file());
    expect(figures).toMatchObject({
      feature_base_pages: 2002,
      feature_base_seconds: 98,
      feature_base_store_writes: 14.3,
      feature_base_redis: 53.19,
      feature_days: '2026-12-02',
      feature_load_range: '12–15',
    });
  });

  it('name a feature run that ended in an error, which has no row', () => {
    expect(featureFigures(file()).feature_missing).toBe(
      'Not in the table: `feature_auth` (reading the results: fetch failed): the run ended in that error, and is to be made again.',
    );
    const done = file() as { runs: Record<string, unknown> };
    delete done.runs.feature_auth;
    expect(featureFigures(done).feature_missing).toBe('Every feature run of the file completed.');
  });

  it('are absent without a features file or its base run, so a template naming them fails to render', () => {
    expect(featureFigures(undefined)).toEqual({});
    const noBase = file() as { summary: Record<string, unknown> };
    delete noBase.summary.base;
    expect(featureFigures(noBase)).toEqual({});
  });

  it('sign every change', () => {
    expect([signed(0.25), signed(-1), signed(0), signed(12_000)]).toEqual(['+0.25', '−1', '0', '+12,000']);
  });
});
