import { parseSitemap, walkSitemaps } from './sitemaps';

const urlset = (urls: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
    .map((u) => `<url><loc> ${u.replace(/&/g, '&amp;')} </loc><lastmod>2026-01-01</lastmod></url>`)
    .join('')}</urlset>`;
const index = (maps: string[]) =>
  `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${maps.map((m) => `<sitemap><loc>${m}</loc></sitemap>`).join('')}</sitemapindex>`;

describe('parseSitemap', () => {
  it('reads urlsets and indexes, trimming and decoding locations', () => {
    expect(parseSitemap(urlset(['https://s.example/a?x=1&y=2', 'https://s.example/b']))).toEqual({
      kind: 'urlset',
      locations: ['https://s.example/a?x=1&y=2', 'https://s.example/b'],
      lastmods: ['2026-01-01', '2026-01-01'],
    });
    expect(parseSitemap(index(['https://s.example/s1.xml.gz']))).toEqual({
      kind: 'index',
      locations: ['https://s.example/s1.xml.gz'],
      lastmods: [null],
    });
    // A <lastmod> belongs to its own <url>: one without leaves null, never the next one's.
    expect(
      parseSitemap(
        '<urlset><url><loc>https://s.example/a</loc></url><url><loc>https://s.example/b</loc><lastmod> 2026-02-03 </lastmod></url></urlset>',
      ).lastmods,
    ).toEqual([null, '2026-02-03']);
  });

  it('tolerates prefixes and upper case, ignores other documents and garbage', () => {
    expect(parseSitemap('<sm:URLSET xmlns:sm="x"><sm:url><sm:LOC>https://s.example/</sm:LOC></sm:url></sm:URLSET>').locations).toEqual([
      'https://s.example/',
    ]);
    expect(parseSitemap('<html><body>not a sitemap</body></html>')).toEqual({ kind: 'unknown', locations: [], lastmods: [] });
    expect(parseSitemap('<<<').locations).toEqual([]);
  });

  it('stops at the location cap', () => {
    expect(parseSitemap(urlset(['a', 'b', 'c'].map((p) => `https://s.example/${p}`)), 2).locations).toHaveLength(2);
  });
});

describe('walkSitemaps', () => {
  it('follows nested indexes breadth-first, reads each file once, and skips failing files', async () => {
    const files: Record<string, string> = {
      'https://s.example/sitemap.xml': index(['https://s.example/a.xml', 'https://s.example/nested.xml', 'https://s.example/broken.xml']),
      'https://s.example/a.xml': urlset(['https://s.example/1', 'https://s.example/2']),
      'https://s.example/nested.xml': index(['https://s.example/b.xml', 'https://s.example/a.xml']),
      'https://s.example/b.xml': urlset(['https://s.example/3']),
    };
    const fetched: string[] = [];
    const errors: string[] = [];
    const batches = [];
    for await (const batch of walkSitemaps(
      ['https://s.example/sitemap.xml'],
      {
        fetch: async (url) => {
          fetched.push(url);
          if (!files[url]) throw new Error('404');
          return files[url];
        },
      },
      { maxFiles: 10, maxDepth: 3, maxUrls: 100 },
      (url) => errors.push(url),
    ))
      batches.push(batch);
    expect(batches.flatMap((b) => b.urls)).toEqual(['https://s.example/1', 'https://s.example/2', 'https://s.example/3']);
    expect(fetched.filter((u) => u.endsWith('/a.xml'))).toHaveLength(1);
    expect(errors).toEqual(['https://s.example/broken.xml']);
  });

  it('honours the file, depth and URL caps', async () => {
    const deep = (n: number) => `https://s.example/level${n}.xml`;
    const source = {
      fetch: async (url: string) =>
        url === deep(3) ? urlset(['https://s.example/deep']) : index([deep(Number(/level(\d)/.exec(url)![1]) + 1)]),
    };
    const urls = [];
    for await (const b of walkSitemaps([deep(0)], source, { maxFiles: 10, maxDepth: 2, maxUrls: 100 }, () => undefined))
      urls.push(...b.urls);
    expect(urls).toEqual([]); // level3 is three indexes deep
    const many = { fetch: async () => urlset(Array.from({ length: 2500 }, (_, i) => `https://s.example/${i}`)) };
    const capped = [];
    for await (const b of walkSitemaps(['https://s.example/big.xml'], many, { maxFiles: 1, maxDepth: 1, maxUrls: 1500 }, () => undefined))
      capped.push(...b.urls);
    expect(capped).toHaveLength(1500);
  });
});
