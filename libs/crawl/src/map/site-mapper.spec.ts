import { AppError } from '@app/core';
import type { FetchResult } from '@app/fetch';
import { SiteMapper } from './site-mapper';
import { rankUrls } from './url-ranking';

const page = (url: string, html: string): FetchResult => ({
  url,
  status: 200,
  headers: {},
  contentType: 'text/html',
  charset: 'utf-8',
  html,
  bytes: html.length,
  redirects: [],
  durationMs: 1,
  mode: 'static',
});
const urlset = (urls: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`;

/** A site: files by URL (string bodies; a function to hold or fail), robots rules by path prefix. */
function mapper(files: Record<string, string | (() => Promise<string>)>, disallow: string[] = [], robotsSitemaps: string[] = []) {
  const fetched: string[] = [];
  return {
    fetched,
    mapper: new SiteMapper({
      fetcher: {
        fetch: async (url: string) => {
          fetched.push(url);
          const body = files[url];
          if (body === undefined) throw new Error(`404 ${url}`);
          return page(url, typeof body === 'string' ? body : await body());
        },
      },
      robots: {
        check: async (url: string) =>
          disallow.some((p) => new URL(url).pathname.startsWith(p))
            ? { verdict: 'disallowed' as const, why: 'robots.txt disallows it' }
            : { verdict: 'allowed' as const, why: '' },
        sitemaps: async () => robotsSitemaps,
      },
    }),
  };
}
const request = { url: 'http://site.test/', useSitemap: true, includeSubdomains: false, limit: 100 };

describe('SiteMapper', () => {
  it('merges the seed page links and the sitemaps (index, gzip), canonical and deduplicated, in scope, robots.txt respected', async () => {
    const { mapper: m } = mapper(
      {
        'http://site.test/':
          '<a href="/a">Alpha</a> <a href="/A/../a#x">again</a> <a href="http://other.test/x">off</a> <a href="http://www.site.test/w">sub</a> <a href="/private/1">p</a>',
        'http://site.test/sitemap.xml': `<sitemapindex><sitemap><loc>http://site.test/s1.xml</loc></sitemap></sitemapindex>`,
        'http://site.test/s1.xml': urlset(['http://site.test/b', 'http://SITE.test:80/a', 'http://site.test/private/2']),
      },
      ['/private'],
    );
    const map = await m.map(request, new AbortController().signal);
    expect(map.urls).toEqual([
      { url: 'http://site.test/', source: 'seed', text: null },
      { url: 'http://site.test/a', source: 'page', text: 'Alpha' },
      { url: 'http://site.test/b', source: 'sitemap', text: null },
    ]);
    expect(map).toMatchObject({ complete: true, found: 3, sitemapFiles: 2, robotsExcluded: 2 });
    const withSubdomains = await m.map({ ...request, includeSubdomains: true }, new AbortController().signal);
    expect(withSubdomains.urls.map((u) => u.url)).toContain('http://www.site.test/w');
  });

  it("reads the Sitemap: lines of robots.txt (gzip is the fetcher's: acceptGzip); without use_sitemap only the page", async () => {
    const files = { 'http://site.test/': '<a href="/x">x</a>', 'http://site.test/maps/one.xml.gz': urlset(['http://site.test/g']) };
    const withMaps = mapper(files, [], ['http://site.test/maps/one.xml.gz']);
    expect((await withMaps.mapper.map(request, new AbortController().signal)).urls.map((u) => u.url)).toEqual([
      'http://site.test/',
      'http://site.test/x',
      'http://site.test/g',
    ]);
    const pageOnly = mapper(files, [], ['http://site.test/maps/one.xml.gz']);
    expect((await pageOnly.mapper.map({ ...request, useSitemap: false }, new AbortController().signal)).urls).toHaveLength(2);
    expect(pageOnly.fetched).toEqual(['http://site.test/']);
  });

  it('counts only the sitemap files it read: a 404 /sitemap.xml or a page that is not a sitemap is not one (issue 40)', async () => {
    const none = mapper({ 'http://site.test/': '<a href="/x">x</a>' });
    expect(await none.mapper.map(request, new AbortController().signal)).toMatchObject({ sitemapFiles: 0, found: 2 });
    expect(none.fetched).toContain('http://site.test/sitemap.xml');
    const soft404 = mapper(
      {
        'http://site.test/': '',
        'http://site.test/sitemap.xml': '<html><body>Not found</body></html>',
        'http://site.test/s.xml': urlset(['http://site.test/y']),
      },
      [],
      ['http://site.test/s.xml', 'http://site.test/missing.xml'],
    );
    expect(await soft404.mapper.map(request, new AbortController().signal)).toMatchObject({ sitemapFiles: 1, found: 2 });
  });

  it('ranks by search (URL and link text) and cuts at the limit', async () => {
    const { mapper: m } = mapper({
      'http://site.test/':
        '<a href="/about">About us</a> <a href="/p/1">Blue widget</a> <a href="/blue-widgets">all</a> <a href="/p/2">Red</a>',
    });
    const map = await m.map({ ...request, useSitemap: false, search: 'blue widget', limit: 2 }, new AbortController().signal);
    expect(map.urls.map((u) => u.url)).toEqual(['http://site.test/blue-widgets', 'http://site.test/p/1']);
    expect(map.found).toBe(5);
  });

  it('refuses a seed the address guard refuses, with sitemaps too (never an empty map)', async () => {
    const refusal = new AppError('upstream-failure', 'The address 10.1.2.3 is not allowed.', { category: 'ssrf_blocked' });
    const { mapper: m, fetched } = mapper({ 'http://site.test/': () => Promise.reject(refusal) });
    await expect(m.map(request, new AbortController().signal)).rejects.toBe(refusal);
    await expect(m.map({ ...request, useSitemap: false }, new AbortController().signal)).rejects.toBe(refusal);
    expect(fetched).toEqual(['http://site.test/', 'http://site.test/']); // no sitemap was asked for
  });

  it('answers with what it found when the time budget runs out (complete: false)', async () => {
    const budget = new AbortController();
    const { mapper: m } = mapper({
      'http://site.test/': '<a href="/a">a</a>',
      'http://site.test/sitemap.xml': () => {
        budget.abort();
        return Promise.reject(new Error('aborted'));
      },
    });
    const map = await m.map(request, budget.signal);
    expect(map).toMatchObject({ complete: false, found: 2 });
  });
});

describe('rankUrls', () => {
  it('keeps the discovery order without a term, puts matches first with one', () => {
    const urls = [
      { url: 'http://s.test/z', source: 'page' as const, text: null },
      { url: 'http://s.test/shoes', source: 'page' as const, text: null },
      { url: 'http://s.test/y', source: 'page' as const, text: 'Shoes sale' },
    ];
    expect(rankUrls(urls, undefined)).toBe(urls);
    expect(rankUrls(urls, 'shoes').map((u) => [u.url, u.score])).toEqual([
      ['http://s.test/shoes', 2],
      ['http://s.test/y', 1],
      ['http://s.test/z', 0],
    ]);
  });
});
