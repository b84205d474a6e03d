import { canonicalize, keyOf, siteOf } from './url-canon';

describe('canonicalize', () => {
  const same = [
    ['https://Shop.Example/a/b?x=1#frag', 'https://shop.example/a/b?x=1'],
    ['HTTPS://SHOP.EXAMPLE:443/a/b?x=1', 'https://shop.example/a/b?x=1'],
    ['https://shop.example/a/./c/../b?x=1', 'https://shop.example/a/b?x=1'],
    ['https://shop.example/%61/%62?x=%31', 'https://shop.example/a/b?x=1'],
    ['http://shop.example:80/p?', 'http://shop.example/p'],
    ['https://user:pw@shop.example/p', 'https://shop.example/p'],
  ] as const;

  it.each(same)('%s → %s', (raw, expected) => {
    expect(canonicalize(raw)?.url).toBe(expected);
    expect(canonicalize(raw)?.key).toBe(keyOf(expected));
  });

  it('keeps what sites give meaning to: trailing slash, query order, non-default ports, reserved escapes', () => {
    expect(canonicalize('https://s.example/a/')?.url).not.toBe(canonicalize('https://s.example/a')?.url);
    expect(canonicalize('https://s.example/?b=1&a=2')?.url).toBe('https://s.example/?b=1&a=2');
    expect(canonicalize('https://s.example:8443/')?.url).toBe('https://s.example:8443/');
    expect(canonicalize('https://s.example/a%2fb')?.url).toBe('https://s.example/a%2Fb');
  });

  it('resolves relative links and refuses non-web schemes and garbage', () => {
    expect(canonicalize('../x?y#z', 'https://s.example/a/b/c')?.url).toBe('https://s.example/a/x?y');
    expect(canonicalize('mailto:x@y.z')).toBeNull();
    expect(canonicalize('javascript:alert(1)')).toBeNull();
    expect(canonicalize('ftp://s.example/file')).toBeNull();
    expect(canonicalize('http://')).toBeNull();
    expect(canonicalize('not a url')).toBeNull();
  });

  it('gives the lower-case host without port', () => {
    expect(canonicalize('https://WWW.Shop.Example:8080/x')?.host).toBe('www.shop.example');
  });
});

describe('siteOf (same_domain_only)', () => {
  it('groups hosts by registrable domain', () => {
    expect(siteOf('www.shop.example.co.uk')).toBe('example.co.uk');
    expect(siteOf('blog.example.co.uk')).toBe('example.co.uk');
    expect(siteOf('www.example.com')).toBe(siteOf('example.com'));
    expect(siteOf('a.github.io')).not.toBe(siteOf('b.github.io'));
    expect(siteOf('127.0.0.1')).toBe('127.0.0.1');
  });
});
