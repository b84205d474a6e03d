import { canonicalize, canonRulesOf, keyOf, siteOf, wwwTwins } from './url-canon';

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

describe('canonicalize strict (canonicalize: "strict")', () => {
  const strict = canonRulesOf({ canonicalize: 'strict', ignore_query_params: ['sort', 'view'] });

  it('drops tracking parameters, sorts the query and ignores the named parameters', () => {
    expect(canonicalize('https://s.example/p?utm_source=x&b=2&gclid=1&a=1&FBCLID=z', undefined, strict)?.url).toBe(
      'https://s.example/p?a=1&b=2',
    );
    expect(canonicalize('https://s.example/p?sort=price&id=7&view=print', undefined, strict)?.url).toBe('https://s.example/p?id=7');
    expect(canonicalize('https://s.example/p?utm_medium=a', undefined, strict)?.url).toBe('https://s.example/p');
    expect(canonicalize('https://s.example/p?b=2&a=1', undefined, strict)?.key).toBe(
      canonicalize('https://s.example/p?a=1&b=2', undefined, strict)?.key,
    );
  });

  it("keeps a repeated name's values in their order, and what default keeps (trailing slash, non-tracking names)", () => {
    expect(canonicalize('https://s.example/p/?tag=b&tag=a&c=1', undefined, strict)?.url).toBe('https://s.example/p/?c=1&tag=b&tag=a');
    expect(canonicalize('https://s.example/p?sid=4', undefined, strict)?.url).toBe('https://s.example/p?sid=4');
  });

  it('ignores named parameters without strict too, and changes nothing by default', () => {
    const ignoreOnly = canonRulesOf({ canonicalize: 'default', ignore_query_params: ['ref'] });
    expect(canonicalize('https://s.example/p?ref=nav&utm_source=x', undefined, ignoreOnly)?.url).toBe('https://s.example/p?utm_source=x');
    expect(canonicalize('https://s.example/p?utm_source=x&b=1&a=2')?.url).toBe('https://s.example/p?utm_source=x&b=1&a=2');
  });

  it('maps a host onto its www twin only once the site showed them to be one (aliases)', () => {
    expect(canonicalize('https://www.s.example/p', undefined, strict)?.url).toBe('https://www.s.example/p');
    const shown = { ...strict, aliases: new Map([['www.s.example', 's.example']]) };
    expect(canonicalize('https://WWW.s.example/p?utm_id=1', undefined, shown)).toMatchObject({
      url: 'https://s.example/p',
      host: 's.example',
    });
    expect(wwwTwins('www.s.example', 's.example')).toBe(true);
    expect(wwwTwins('s.example', 'www.s.example')).toBe(true);
    expect(wwwTwins('shop.s.example', 's.example')).toBe(false);
    expect(wwwTwins('s.example', 's.example')).toBe(false);
  });
});
