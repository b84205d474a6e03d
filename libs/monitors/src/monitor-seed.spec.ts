import { seedProblems } from './monitor-seed';

describe('seedProblems', () => {
  it('takes a url, a list, or a site alone', () => {
    expect(seedProblems({ url: 'https://s.example/', options: { max_depth: 2 } })).toEqual([]);
    expect(seedProblems({ url: null, urls: ['https://s.example/p/1'], options: { concurrency: 2, fetch_mode: 'static' } })).toEqual([]);
    expect(seedProblems({ url: null, urls: null, options: {} })).toEqual([]);
  });

  it('refuses url with urls, and options about finding pages with a list', () => {
    expect(seedProblems({ url: 'https://s.example/', urls: ['https://s.example/p/1'], options: {} })).toEqual([
      { location: 'body.urls', message: expect.stringMatching(/not both/) },
    ]);
    expect(
      seedProblems({ url: null, urls: ['https://s.example/p/1'], options: { max_depth: 1, use_sitemap: true, follow_pattern: null } }).map(
        (p) => p.location,
      ),
    ).toEqual(['body.options.max_depth', 'body.options.use_sitemap']);
  });
});
