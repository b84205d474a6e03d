import { looksLikeUrl, markdownTargets, urlKey } from './url-forms';

describe('URL forms', () => {
  it('compares absolute http(s) URLs without fragment or trailing slash, host case-insensitively', () => {
    expect(urlKey('https://Shop.Example/p/42/#reviews')).toBe('https://shop.example/p/42');
    expect(urlKey('/p/42', 'https://shop.example/catalog/')).toBe('https://shop.example/p/42');
    expect(urlKey('https://shop.example/')).toBe('https://shop.example/');
    expect(urlKey('https://shop.example/a%28b%29')).toBe(urlKey('https://shop.example/a(b)'));
    expect(urlKey('https://shop.example/p?id=1')).toBe('https://shop.example/p?id=1');
  });

  it('reads nothing but web addresses', () => {
    expect(urlKey('mailto:a@b.example')).toBeUndefined();
    expect(urlKey('not a url')).toBeUndefined();
    expect(urlKey('')).toBeUndefined();
    expect(looksLikeUrl('https://shop.example/x')).toBe(true);
    expect(looksLikeUrl('see https://shop.example/x')).toBe(false);
  });

  it('finds markdown link and image targets and the spans to leave out of the words', () => {
    const text = 'By [Little, Brown](https://shop.example/lb) ![cover](https://img.example/c.jpg "Cover") [x](<https://a.example/b>)';
    const { skip, targets } = markdownTargets(text);
    expect(targets.map((t) => t.url)).toEqual(['https://shop.example/lb', 'https://img.example/c.jpg', 'https://a.example/b']);
    expect(text.slice(skip[0], skip[1])).toBe('(https://shop.example/lb)');
    expect(skip).toHaveLength(6);
  });

  it('does not follow an unclosed target past its line', () => {
    expect(markdownTargets('[a](https://x.example/\nnext) line').targets).toEqual([]);
  });
});
