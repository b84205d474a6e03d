import { resolveCrawlOptions } from '@app/sites';
import { archivedJobOptions } from './archived-job-options';

describe('archivedJobOptions', () => {
  const base = resolveCrawlOptions({ max_depth: 3, use_sitemap: true, respect_robots: true, delay_ms: 500, include_patterns: ['/a/*'] });

  it('turns finding and fetching off, keeps the rest of the base, and keeps the pages in the archive', () => {
    const options = archivedJobOptions(base, 7);
    expect(options).toEqual({
      ...base,
      follow_pattern: null,
      follow_selector: null,
      max_depth: 0,
      max_pages: 7,
      same_domain_only: false,
      use_sitemap: false,
      respect_robots: false,
      extract_from_seed: true,
      delay_ms: 0,
      include_patterns: [],
      exclude_patterns: [],
      archive: true,
    });
  });

  it('places the job type’s own fields over the base, in the base’s key order, with archive last when the base lacks it', () => {
    const options = archivedJobOptions(base, 1, { concurrency: 2, max_cost_usd: 0.5 });
    expect(options).toMatchObject({ concurrency: 2, max_cost_usd: 0.5, archive: true });
    const order = Object.keys(options);
    expect(order.slice(0, Object.keys(base).length)).toEqual(Object.keys(base));
    if (!('archive' in base)) expect(order[order.length - 1]).toBe('archive');
  });
});
