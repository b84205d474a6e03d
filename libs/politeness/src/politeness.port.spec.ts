import { hostnameOf } from './politeness.port';

describe('hostnameOf', () => {
  it('keys a host by its lower-cased name: every port of one machine shares one politeness budget', () => {
    expect(hostnameOf('http://Shop.Example:8080/a')).toBe('shop.example');
    expect(hostnameOf('https://shop.example/b')).toBe('shop.example');
    expect(hostnameOf('http://[::1]:9000/')).toBe('[::1]');
  });

  it('throws on a URL that does not parse', () => {
    expect(() => hostnameOf('not a url')).toThrow(/Invalid URL/);
  });
});
