import { crawlOptions, scopePattern, urlPattern } from './crawl-options';

describe("crawl options (Firecrawl's crawl in Gleaner's terms)", () => {
  it('anchors a path pattern after the origin, leaves others and full-URL patterns as they are', () => {
    expect(urlPattern('^/blog/', false)).toBe('^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+/blog/');
    expect(urlPattern('blog', false)).toBe('blog');
    expect(urlPattern('^https://x\\.test/', true)).toBe('^https://x\\.test/');
    expect(new RegExp(urlPattern('^/blog/', false)).test('https://x.test/blog/a')).toBe(true);
    expect(new RegExp(urlPattern('^/blog/', false)).test('https://x.test/a/blog/')).toBe(false);
  });

  it('stays under the seed path by default, on the host with crawlEntireDomain, on subdomains with allowSubdomains', () => {
    const under = new RegExp(scopePattern('https://x.test/docs/', {})!);
    expect(under.test('https://x.test/docs/a')).toBe(true);
    expect(under.test('https://x.test/docsx')).toBe(false);
    expect(under.test('https://x.test/other')).toBe(false);
    const host = new RegExp(scopePattern('https://x.test/docs/', { crawlEntireDomain: true })!);
    expect(host.test('https://x.test/other')).toBe(true);
    expect(host.test('https://y.x.test/other')).toBe(false);
    const subdomains = new RegExp(scopePattern('https://x.test/', { crawlEntireDomain: true, allowSubdomains: true })!);
    expect(subdomains.test('https://y.x.test/other')).toBe(true);
    expect(subdomains.test('https://evilx.test/')).toBe(false);
    expect(scopePattern('https://x.test/', { allowExternalLinks: true })).toBeUndefined();
  });

  it("keeps Firecrawl's defaults and clamps to Gleaner's limits", () => {
    expect(crawlOptions({ url: 'https://x.test/' }, {})).toMatchObject({
      max_pages: 10_000,
      max_depth: 10,
      use_sitemap: true,
      same_domain_only: true,
    });
    expect(
      crawlOptions(
        { url: 'https://x.test/', limit: 1_000_000, maxDiscoveryDepth: 50, delay: 2.5, maxConcurrency: 100, sitemap: 'skip' },
        { waitFor: 90_000 },
      ),
    ).toMatchObject({ max_pages: 100_000, max_depth: 10, delay_ms: 2500, concurrency: 32, use_sitemap: false, wait_for: { ms: 30_000 } });
  });
});
