import { getMetadataStorage } from 'class-validator';
import { CRAWL_OPTION_DEFAULTS, CrawlOptionsDto, resolveCrawlOptions, validCrawlOptions } from './crawl-options.dto';
import { ProxyPools } from '@app/fetch';

describe('crawl options: one definition', () => {
  it('resolves request over site over defaults; absent and null fall through', () => {
    const options = resolveCrawlOptions(
      { max_pages: 50, follow_pattern: null },
      { max_pages: 5, max_depth: 4, follow_pattern: '/p/' },
      undefined,
    );
    expect(options).toEqual({
      ...CRAWL_OPTION_DEFAULTS,
      max_pages: 50,
      max_depth: 4,
      follow_pattern: '/p/',
      include_patterns: [],
      exclude_patterns: [],
    });
    // Defaults are copies: a crawl's arrays are its own.
    resolveCrawlOptions().include_patterns.push('x');
    expect(resolveCrawlOptions().include_patterns).toEqual([]);
  });

  it('has a default for every option the DTO declares, and nothing else', () => {
    const declared = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(CrawlOptionsDto, '', true, false)
        .map((m) => m.propertyName),
    );
    expect(new Set(Object.keys(CRAWL_OPTION_DEFAULTS))).toEqual(declared);
  });

  it('keeps the stored options that pass the DTO rules, and only those', () => {
    expect(
      validCrawlOptions({ max_pages: 20, concurrency: 99, fetch_mode: 'teleport', follow_pattern: null, bogus: 1, delay_ms: 10 }),
    ).toEqual({
      max_pages: 20,
      delay_ms: 10,
    });
    expect(validCrawlOptions('nonsense')).toEqual({});
    expect(validCrawlOptions(null)).toEqual({});
    expect(validCrawlOptions({ follow_pattern: '(a' })).toEqual({}); // not a valid RE2 pattern
    expect(validCrawlOptions({ provenance: 'full', grounding: 'nope' })).toEqual({ provenance: 'full' });
  });

  it('keeps a stored proxy pool this process does not know: the fetch refuses it, never goes out directly', () => {
    expect(validCrawlOptions({ max_pages: 5, proxy: 'removed-pool' })).toEqual({ max_pages: 5, proxy: 'removed-pool' });
    expect(validCrawlOptions({ proxy: 'none' })).toEqual({ proxy: 'none' });
    expect(validCrawlOptions({ proxy: 7 })).toEqual({});
    expect(() => new ProxyPools(new Map()).get('removed-pool')).toThrow(/removed-pool is not configured/);
  });

  it('extracts with provenance summary and grounding report unless told otherwise (docs/provenance.md)', () => {
    expect(resolveCrawlOptions()).toMatchObject({ provenance: 'summary', grounding: 'report' });
    expect(resolveCrawlOptions({ grounding: 'fail_page' }, { provenance: 'off', grounding: 'null_ungrounded' })).toMatchObject({
      provenance: 'off',
      grounding: 'fail_page',
    });
  });
});

describe('max_pages ceiling: the operator setting GLEANER_CRAWL_MAX_PAGES', () => {
  /** The DTO module as a process started with `env` defines it (decorators read the setting once, at definition). */
  function dtoWith(value: string | undefined): typeof import('./crawl-options.dto') {
    const before = process.env.GLEANER_CRAWL_MAX_PAGES;
    if (value === undefined) delete process.env.GLEANER_CRAWL_MAX_PAGES;
    else process.env.GLEANER_CRAWL_MAX_PAGES = value;
    try {
      let mod!: typeof import('./crawl-options.dto');
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module instance, defined under this environment
        mod = require('./crawl-options.dto');
      });
      return mod;
    } finally {
      if (before === undefined) delete process.env.GLEANER_CRAWL_MAX_PAGES;
      else process.env.GLEANER_CRAWL_MAX_PAGES = before;
    }
  }

  it('is 100,000 by default: more is refused', () => {
    const dto = dtoWith(undefined);
    expect(dto.CRAWL_CAPS.maxPages).toBe(100_000);
    expect(dto.validCrawlOptions({ max_pages: 100_000 })).toEqual({ max_pages: 100_000 });
    expect(dto.validCrawlOptions({ max_pages: 100_001 })).toEqual({});
  });

  it('raised by the operator, admits crawls up to it and no further', () => {
    const dto = dtoWith('1000001');
    expect(dto.CRAWL_CAPS.maxPages).toBe(1_000_001);
    expect(dto.validCrawlOptions({ max_pages: 1_000_001 })).toEqual({ max_pages: 1_000_001 });
    expect(dto.validCrawlOptions({ max_pages: 1_000_002 })).toEqual({});
  });

  it('falls back to the default for a value the configuration refuses (startup reports it)', () => {
    expect(dtoWith('lots').CRAWL_CAPS.maxPages).toBe(100_000);
    expect(dtoWith('20000000').CRAWL_CAPS.maxPages).toBe(100_000);
  });
});
