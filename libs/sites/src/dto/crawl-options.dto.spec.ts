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
