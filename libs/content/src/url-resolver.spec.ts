import { parseHtml } from './dom';
import { isAbsoluteHttp, UrlResolver } from './url-resolver';

/** What the resolver gave before the absolute URLs were read without the base: `new URL(href, base)`. */
function withBase(href: string, base: string): string | undefined {
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}

describe('UrlResolver', () => {
  const bases = ['https://example.com/a/b?q=1#top', 'http://example.org:8080/dir/', 'https://user:pw@xn--bcher-kva.example/x'];
  const hrefs = [
    'https://other.example/path?x=1#frag',
    'http://other.example',
    'https://other.example:443/default-port',
    'http://other.example:80/./a/../b/%7e/~/ caf\u00e9',
    'https://OTHER.example/UPPER/%7E',
    'https://b\u00fccher.example/',
    'https://\tother.example/\n/tab-and-newline',
    'https://other.example\\back\\slash',
    'https:///three-slashes',
    'https://',
    'https://[::1]:8080/v6',
    'https://256.256.256.256/',
    'https://0x7f.1/',
    'https://user@/no-host',
    'http://a b/',
    '  https://padded.example/  ',
    'https:relative-without-slashes',
    'http:/one-slash',
    'HTTPS://upper.example/',
    'https:\\\\backslashes.example/',
    '//protocol-relative.example/x',
    '/absolute/path',
    'relative?y=2',
    '#only-a-fragment',
    'mailto:someone@example.com',
    'javascript:void(0)',
  ];

  it('resolves every href as new URL(href, base) does, absolute http(s) ones read without the base', () => {
    for (const base of bases) {
      const resolver = new UrlResolver(parseHtml('<p>page</p>'), base);
      for (const href of hrefs) {
        const expected = withBase(href, base);
        const safe = expected !== undefined && /^(?:https?|mailto|tel):/.test(expected) ? expected : undefined;
        expect([href, resolver.resolve(href)?.href]).toEqual([href, safe]);
      }
    }
  });

  it('takes only lower-case http:// and https:// as absolute', () => {
    expect(hrefs.filter(isAbsoluteHttp).every((href) => /^https?:\/\//.test(href))).toBe(true);
    expect(isAbsoluteHttp('HTTP://x')).toBe(false);
    expect(isAbsoluteHttp('http:/x')).toBe(false);
    expect(isAbsoluteHttp('https:x')).toBe(false);
  });

  it('resolves against the <base href>, itself resolved against the page', () => {
    const resolver = new UrlResolver(parseHtml('<head><base href="/root/"></head><p>x</p>'), 'https://example.com/a/b');
    expect(resolver.resolve('c/d')?.href).toBe('https://example.com/root/c/d');
    expect(resolver.resolve('https://other.example/e')?.href).toBe('https://other.example/e');
    expect(resolver.isSamePageAnchor(resolver.resolve('#top')!)).toBe(true);
  });
});
