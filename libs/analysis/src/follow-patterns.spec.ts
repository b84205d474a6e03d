import { RE2JS } from 're2js';
import { inferFollowPatterns } from './follow-patterns';

const BASE = 'http://127.0.0.1:4000';

function expectValid(patterns: ReturnType<typeof inferFollowPatterns>): void {
  for (const p of patterns) {
    const re = RE2JS.compile(p.pattern);
    expect(p.pattern.startsWith('^') && p.pattern.endsWith('$')).toBe(true);
    expect(p.sample_urls.length).toBeGreaterThan(0);
    expect(p.sample_urls.length).toBeLessThanOrEqual(5);
    for (const u of p.sample_urls) expect(re.matches(u)).toBe(true);
  }
}

describe('inferFollowPatterns', () => {
  const links = [
    { url: `${BASE}/`, text: 'Quotes to Scrape' },
    { url: `${BASE}/login`, text: 'Login' },
    { url: `${BASE}/author/Albert-Einstein/`, text: '(about)' },
    { url: `${BASE}/tag/change/page/1/`, text: 'change' },
    { url: `${BASE}/tag/deep-thoughts/page/1/`, text: 'deep-thoughts' },
    { url: `${BASE}/author/J-K-Rowling/`, text: '(about)' },
    { url: `${BASE}/tag/abilities/page/1/`, text: 'abilities' },
    { url: `${BASE}/author/Jane-Austen/`, text: '(about)' },
    { url: `${BASE}/author/Albert-Einstein/`, text: '(about)' },
    { url: `${BASE}/page/2/`, text: 'Next →' },
    { url: 'https://elsewhere.example/page/3/', text: 'Next' },
  ];

  it('puts pagination first, then author and tag pages, as anchored RE2 on absolute URLs', () => {
    const patterns = inferFollowPatterns(links, `${BASE}/page/1/`);
    expect(patterns.map((p) => p.pattern)).toEqual([
      '^http://127\\.0\\.0\\.1:4000/page/\\d+/$',
      '^http://127\\.0\\.0\\.1:4000/author/[^/]+/$',
      '^http://127\\.0\\.0\\.1:4000/tag/[^/]+/page/\\d+/$',
    ]);
    expect(patterns[0]).toMatchObject({ kind: 'pagination', description: 'Pagination (Next →)', sample_urls: [`${BASE}/page/2/`] });
    expect(patterns[1].description).toMatch(/^Author pages \(3 links/);
    expect(patterns[1].sample_urls).toEqual([
      `${BASE}/author/Albert-Einstein/`,
      `${BASE}/author/J-K-Rowling/`,
      `${BASE}/author/Jane-Austen/`,
    ]);
    expect(patterns[2].description).toMatch(/^Tag pages/);
    expectValid(patterns);
  });

  it('keeps query parameter names and generalises numeric values', () => {
    const patterns = inferFollowPatterns(
      [
        { url: 'https://shop.example/list?cat=books&page=2', text: '2' },
        { url: 'https://shop.example/list?cat=books&page=3', text: '3' },
        { url: 'https://shop.example/list?cat=books&page=4', text: 'next ›' },
        { url: 'https://shop.example/item?id=17', text: 'Blue mug' },
        { url: 'https://shop.example/item?id=18', text: 'Red mug' },
      ],
      'https://shop.example/list?cat=books&page=1',
    );
    expect(patterns[0]).toMatchObject({ pattern: '^https://shop\\.example/list\\?cat=books&page=\\d+$', kind: 'pagination' });
    expect(patterns[1]).toMatchObject({ pattern: '^https://shop\\.example/item\\?id=\\d+$', kind: 'detail' });
    expectValid(patterns);
  });

  it('escapes metacharacters and masks digits inside segments', () => {
    const patterns = inferFollowPatterns(
      [1, 2, 3].map((i) => ({ url: `https://a.example/c++/item-${i}.html`, text: `Item ${i}` })),
      'https://a.example/c++/',
    );
    expect(patterns).toHaveLength(1);
    expect(patterns[0].pattern).toBe('^https://a\\.example/c\\+\\+/item-\\d+\\.html$');
    expectValid(patterns);
  });

  it('does not collapse distinct top-level sections into one pattern', () => {
    const patterns = inferFollowPatterns(
      ['about', 'contact', 'blog', 'shop'].map((s) => ({ url: `https://a.example/${s}/`, text: s })),
      'https://a.example/',
    );
    expect(patterns).toEqual([]);
  });

  it('generalises root-level long slugs (blog posts)', () => {
    const patterns = inferFollowPatterns(
      ['my-first-blog-post', 'another-long-post-title', 'third-post-about-things'].map((s) => ({
        url: `https://blog.example/${s}/`,
        text: s,
      })),
      'https://blog.example/',
    );
    expect(patterns[0].pattern).toBe('^https://blog\\.example/[^/]+/$');
    expectValid(patterns);
  });

  it('copes with empty input, bad URLs and a bad page URL', () => {
    expect(inferFollowPatterns([], 'https://a.example/')).toEqual([]);
    expect(
      inferFollowPatterns(
        [
          { url: 'http://[bad', text: '' },
          { url: 'javascript:void(0)', text: 'x' },
        ],
        'https://a.example/',
      ),
    ).toEqual([]);
    expect(inferFollowPatterns(links, 'not a url')).toEqual([]);
  });

  it('is deterministic and independent of duplicate links', () => {
    const a = inferFollowPatterns(links, `${BASE}/page/1/`);
    const b = inferFollowPatterns([...links, ...links], `${BASE}/page/1/`);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});
