import {
  COOKIE_VALUE_PATTERN,
  cookieHeader,
  forbiddenHeaderReason,
  HEADER_VALUE_PATTERN,
  inScope,
  parseCookieHeader,
  scopeHostOf,
  TOKEN_PATTERN,
} from './request-control';

describe('request control', () => {
  it('refuses framing, hop-by-hop, proxy and encoding headers in any case, allows the rest', () => {
    for (const name of [
      'Host',
      'content-length',
      'Transfer-Encoding',
      'CONNECTION',
      'Keep-Alive',
      'TE',
      'Trailer',
      'Upgrade',
      'Expect',
      'Accept-Encoding',
      'Proxy-Authorization',
      'proxy-connection',
    ]) {
      expect(forbiddenHeaderReason(name)).not.toBeNull();
    }
    for (const name of ['Authorization', 'X-Api-Key', 'Accept-Language', 'Referer', 'Cookie'])
      expect(forbiddenHeaderReason(name)).toBeNull();
  });

  it('parses and builds Cookie headers', () => {
    expect(parseCookieHeader('a=1; b = two ;c=; =x; novalue')).toEqual({ a: '1', b: 'two', c: '' });
    expect(cookieHeader({ a: '1', b: 'two' })).toBe('a=1; b=two');
  });

  it('scopes by host name and port, case-insensitively', () => {
    expect(inScope('http://Docs.Test:8080/x', 'docs.test:8080')).toBe(true);
    expect(inScope('http://docs.test:8081/x', 'docs.test:8080')).toBe(false);
    expect(inScope('http://other.test:8080/x', 'docs.test:8080')).toBe(false);
    expect(inScope('not a url', 'docs.test')).toBe(false);
    expect(scopeHostOf({ headers: {}, cookies: {} }, 'https://a.example/p')).toBe('a.example');
    expect(scopeHostOf({ headers: {}, cookies: {}, host: 'b.example' }, 'https://a.example/p')).toBe('b.example');
    expect(scopeHostOf(undefined, 'https://a.example/p')).toBeUndefined();
  });

  it('patterns: tokens, header values without line breaks, cookie octets', () => {
    expect(TOKEN_PATTERN.test('X-Api-Key')).toBe(true);
    expect(TOKEN_PATTERN.test('Bad Name')).toBe(false);
    expect(HEADER_VALUE_PATTERN.test('Bearer abc déf')).toBe(true);
    expect(HEADER_VALUE_PATTERN.test('a\r\nInjected: 1')).toBe(false);
    expect(COOKIE_VALUE_PATTERN.test('abc123-_.')).toBe(true);
    expect(COOKIE_VALUE_PATTERN.test('"quoted"')).toBe(true);
    expect(COOKIE_VALUE_PATTERN.test('a;b')).toBe(false);
    expect(COOKIE_VALUE_PATTERN.test('a b')).toBe(false);
  });
});
