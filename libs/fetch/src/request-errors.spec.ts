import { mapRequestError } from './request-errors';

describe('mapRequestError (issue 40, item 14: no upstream failure surfaces as a 500)', () => {
  it('maps a DNS failure to fetch_error (a 502 on a synchronous scrape or extract)', () => {
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND no-such.invalid'), { code: 'ENOTFOUND' });
    expect(mapRequestError(dns, 'http://no-such.invalid/')).toMatchObject({ category: 'fetch_error', slug: 'upstream-failure' });
  });

  it.each([new TypeError('x is not a function'), 'a string', null, undefined, { code: 'EWHATEVER' }])(
    'maps anything else the HTTP client throws (%p) onto fetch_error, never internal',
    (odd) => {
      expect(mapRequestError(odd, 'http://site.test/')).toMatchObject({ category: 'fetch_error' });
    },
  );
});
