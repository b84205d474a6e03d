import { RE2JS } from 're2js';
import { parseSchema } from '@app/schema';
import { startFixtureSite, type FixtureSite } from '../../../test/fixtures/site';
import { analyzePage, toAnalysisResult } from './analyze-page';
import { articlePages, bookPage, bookPages } from '../../../test/fixtures/analysis-pages';

async function get(url: string): Promise<string> {
  const res = await fetch(url);
  return res.text();
}

describe('analyzePage on the fixture site', () => {
  let site: FixtureSite;
  let esc: string;
  beforeAll(async () => {
    site = await startFixtureSite();
    esc = site.url.replace(/\./g, '\\.');
  });
  afterAll(() => site.close());

  it('/page/1/: listing, quote ×10, pagination + author + tag patterns, schema, sample links', async () => {
    const url = `${site.url}/page/1/`;
    const h = analyzePage({ html: await get(url), url, links: [] });
    expect(h.pageType).toBe('listing');
    expect(h.detectedElements[0]).toMatchObject({ name: 'quote', count: 10, selector: 'div.quote' });
    const patterns = h.followPatterns.map((p) => p.pattern);
    expect(patterns[0]).toBe(`^${esc}/page/\\d+/$`);
    expect(h.followPatterns[0].sample_urls).toEqual([`${site.url}/page/2/`]);
    expect(patterns).toContain(`^${esc}/author/[^/]+/$`);
    expect(patterns).toContain(`^${esc}/tag/[^/]+/page/\\d+/$`);
    for (const p of h.followPatterns) {
      const re = RE2JS.compile(p.pattern);
      for (const u of p.sample_urls) expect(re.matches(u)).toBe(true);
    }
    expect(h.suggestedSchema).toMatch(/^quotes: \[\{text: string, author: string, .*tags: \[string\]\}\]\nnext_page: url\n$/);
    expect(h.sampleLinks.length).toBeGreaterThan(5);
    expect(h.sampleLinks.length).toBeLessThanOrEqual(20);
    expect(h.sampleLinks[0]).toBe(`${site.url}/page/2/`);
    expect(h.sampleLinks.every((u) => u.startsWith(`${site.url}/`))).toBe(true);
    expect(h.sampleLinks).not.toContain(url);
  });

  it('an author page: detail, no follow patterns worth following', async () => {
    const url = `${site.url}/author/Albert-Einstein/`;
    const h = analyzePage({ html: await get(url), url, links: [] });
    expect(h.pageType).toBe('detail');
    expect(h.detectedElements).toEqual([]);
    expect(h.suggestedSchema).toContain('born: string');
  });

  it('the JS variant: static shell vs rendered list → dynamic, and structure is read from the rendered copy', async () => {
    const url = `${site.url}/js/`;
    const staticHtml = await get(url);
    // Stand-in for the browser-rendered DOM: the same quotes as the normal list page.
    const rendered = await get(`${site.url}/page/1/`);
    const h = analyzePage({ html: staticHtml, url, links: [], rendered: { html: rendered } });
    expect(h.recommendedFetchMode).toBe('dynamic');
    expect(h.analysedHtml).toBe('rendered');
    expect(h.detectedElements[0]).toMatchObject({ name: 'quote', count: 10 });
    expect(h.staticTextChars).toBe(0);
  });

  it('same static and rendered HTML → static', async () => {
    const url = `${site.url}/page/3/`;
    const html = await get(url);
    expect(analyzePage({ html, url, links: [], rendered: { html } }).recommendedFetchMode).toBe('static');
  });

  it('a blocked static fetch with a rendered copy → dynamic', async () => {
    const url = `${site.url}/js-botwall`;
    const wall = await get(url);
    const h = analyzePage({ html: wall, url, links: [], rendered: { html: await get(`${site.url}/page/1/`) } });
    expect(h.recommendedFetchMode).toBe('dynamic');
    const h2 = analyzePage({
      html: '',
      url,
      links: [],
      staticError: 'bot wall (cloudflare)',
      rendered: { html: await get(`${site.url}/`) },
    });
    expect(h2.recommendedFetchMode).toBe('dynamic');
    expect(h2.pageType).toBe('listing');
  });

  it('uses the caller-supplied links when given', async () => {
    const url = `${site.url}/page/1/`;
    const h = analyzePage({ html: await get(url), url, links: [{ url: `${site.url}/page/2/`, text: 'Next' }] });
    expect(h.followPatterns.map((p) => p.kind)).toEqual(['pagination']);
    expect(h.sampleLinks).toEqual([`${site.url}/page/2/`]);
  });

  it('toAnalysisResult gives the api.md field set', async () => {
    const url = `${site.url}/`;
    const r = toAnalysisResult(analyzePage({ html: await get(url), url, links: [] }));
    expect(Object.keys(r).sort()).toEqual(
      [
        'detected_elements',
        'follow_patterns',
        'page_type',
        'recommended_fetch_mode',
        'sample_links',
        'site_summary',
        'suggested_schema',
      ].sort(),
    );
    expect(Object.keys(r.detected_elements[0]).sort()).toEqual(['count', 'description', 'name', 'type']);
    expect(Object.keys(r.follow_patterns[0]).sort()).toEqual(['description', 'pattern', 'sample_urls']);
    expect(r.site_summary).toMatch(/^Listing page/);
  });
});

describe('analyzePage on real pages and odd input', () => {
  it('a corpus article is an article with an article schema', () => {
    const [page] = articlePages(3).filter((p) => p.html.length > 50_000);
    const h = analyzePage({ html: page.html, url: page.url, links: [] });
    expect(h.pageType).toBe('article');
    expect(h.suggestedSchema).toMatch(/^title: string\n/);
  });

  it.each(bookPages().map((p) => [p.id, p]))('book page %s is a product page with label fields (ISBN, publisher)', (_id, p) => {
    const h = analyzePage({ html: p.html, url: p.url, links: [] });
    expect(h.pageType).toBe('product');
    expect(h.suggestedSchema).toMatch(/isbn_13: string/);
    expect(h.suggestedSchema).toMatch(/publisher: string/);
    for (const f of h.followPatterns) expect(RE2JS.compile(f.pattern).matches(f.sample_urls[0])).toBe(true);
  });

  it('is deterministic (apart from the timing field)', () => {
    for (const p of [bookPage('harborlane-clockmakers-apprentice'), bookPage('riverbend-salt-roads')]) {
      const a = { ...analyzePage({ html: p.html, url: p.url, links: [] }), ms: 0 };
      const b = { ...analyzePage({ html: p.html, url: p.url, links: [] }), ms: 0 };
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    }
  });

  it('empty and garbage pages give a complete, harmless result', () => {
    for (const html of [
      '',
      '\ufeff',
      '<html>',
      '%PDF-1.4 \u0000\u0001 binary',
      '<a href="x">'.repeat(3000),
      '<table><tr><td>'.repeat(2000),
    ]) {
      const h = analyzePage({ html, url: 'https://x.example/p', links: [] });
      expect(typeof h.suggestedSchema).toBe('string');
      expect(h.sampleLinks.length).toBeLessThanOrEqual(20);
    }
    const empty = analyzePage({ html: '', url: 'https://x.example/', links: [] });
    expect(empty).toMatchObject({
      pageType: 'other',
      detectedElements: [],
      followPatterns: [],
      sampleLinks: [],
      recommendedFetchMode: 'auto',
    });
    expect(() => analyzePage({ html: '<p>x</p>', url: 'not a url', links: [{ url: '::', text: '' }] })).not.toThrow();
  });

  // Speed is measured by the benchmarks (test/bench), not asserted in specs.
  const allPages = [...articlePages(), ...bookPages()];
  it('has every vendored article and fixture book page to run on', () => expect(allPages.length).toBeGreaterThanOrEqual(16));

  it.each(allPages.map((p) => [p.id, p]))('%s: a complete result', (_id, p) => {
    const h = analyzePage({ html: p.html, url: p.url, links: [] });
    expect(Object.keys(h).sort()).toEqual(
      [
        'analysedHtml',
        'detailFields',
        'detectedElements',
        'fetchModeReason',
        'followPatterns',
        'ms',
        'pageType',
        'pageTypeConfidence',
        'pageTypeReasons',
        'recommendedFetchMode',
        'renderedTextChars',
        'sampleLinks',
        'siteSummary',
        'staticTextChars',
        'suggestedSchema',
      ].sort(),
    );
    expect(['listing', 'detail', 'article', 'product', 'search', 'home']).toContain(h.pageType);
    expect(h.pageTypeConfidence).toBeGreaterThan(0);
    expect(h.pageTypeReasons.length).toBeGreaterThan(0);
    expect(h.siteSummary).toMatch(/^[A-Z]\w+ page/);
    expect(h.analysedHtml).toBe('static');
    expect(h.staticTextChars).toBeGreaterThan(0);
    expect(parseSchema(h.suggestedSchema).fieldCount).toBeGreaterThan(0);
    expect(h.sampleLinks.length).toBeGreaterThan(0);
    expect(h.sampleLinks.length).toBeLessThanOrEqual(20);
    for (const f of h.followPatterns) for (const u of f.sample_urls) expect(RE2JS.compile(f.pattern).matches(u)).toBe(true);
    expect(Number.isFinite(h.ms)).toBe(true);
  });
});
