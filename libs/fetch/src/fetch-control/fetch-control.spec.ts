import { AppError } from '@app/core';
import {
  fetchSecretValues,
  openFetchControl,
  splitFetchControl,
  splitOptionsFetchControl,
  storedFetchControlSchema,
} from './fetch-control';

describe('fetch control: split at intake, opened for each page', () => {
  it('stores the user agent and wait_for, seals headers and cookies, and puts the two back together for the worker', () => {
    const { stored, secrets } = splitFetchControl(
      { headers: { 'X-Token': 'tok-1234', Cookie: 'a=1; b=2', 'User-Agent': 'Bot/1' }, cookies: { b: '3' }, wait_for: { ms: 500 } },
      'dynamic',
    );
    expect(stored).toEqual({ user_agent: 'Bot/1', wait_for: { ms: 500 } });
    expect(JSON.stringify(stored)).not.toContain('tok-1234');
    expect(openFetchControl(stored, secrets)).toEqual({
      scoped: { headers: { 'X-Token': 'tok-1234' }, cookies: { a: '1', b: '3' } },
      userAgent: 'Bot/1',
      waitFor: { ms: 500 },
    });
    expect(fetchSecretValues(secrets)).toEqual(['tok-1234']);
  });

  it('stores nothing and seals nothing without fetch control', () => {
    expect(splitFetchControl({}, 'auto')).toEqual({ stored: null, secrets: {} });
    expect(openFetchControl(null, {})).toEqual({});
  });

  it('refuses a user agent given twice, wait_for with both or neither field, and wait_for without the browser', () => {
    const problems = (fields: Parameters<typeof splitFetchControl>[0], mode: 'auto' | 'static' = 'auto') => {
      try {
        splitFetchControl(fields, mode);
      } catch (error) {
        if (error instanceof AppError) return (error.errors ?? []).map((e) => e.location);
        throw error;
      }
      throw new Error('expected a validation error');
    };
    expect(problems({ headers: { 'user-agent': 'A' }, user_agent: 'B' })).toEqual(['body.user_agent']);
    expect(problems({ wait_for: { selector: '#x', ms: 1 } })).toEqual(['body.wait_for']);
    expect(problems({ wait_for: {} })).toEqual(['body.wait_for']);
    expect(problems({ wait_for: { selector: '#x' } }, 'static')).toEqual(['body.wait_for']);
  });

  it('reads a stored copy whose absent fields came back from the store as null', () => {
    expect(storedFetchControlSchema.parse(undefined)).toBeNull();
    expect(storedFetchControlSchema.parse({ user_agent: null, wait_for: { selector: '#x' } })).toEqual({
      user_agent: null,
      wait_for: { selector: '#x' },
    });
  });

  it("scopes the headers and cookies to one host when the job says so (a crawl's seed, an analysis's page)", () => {
    const { secrets } = splitFetchControl({ headers: { 'X-Key': 'k' }, cookies: { s: '1' } }, 'auto');
    expect(openFetchControl(null, secrets, { host: 'shop.test:8080' })).toEqual({
      scoped: { headers: { 'X-Key': 'k' }, cookies: { s: '1' }, host: 'shop.test:8080' },
    });
    expect(openFetchControl(null, secrets).scoped).toEqual({ headers: { 'X-Key': 'k' }, cookies: { s: '1' } });
  });

  it('reads a wait_for stored under crawl options by whichever field it names', () => {
    expect(openFetchControl({ user_agent: null, wait_for: { selector: '#x' } }, {})).toEqual({ waitFor: { selector: '#x' } });
    expect(openFetchControl({ wait_for: { ms: 5 } }, {})).toEqual({ waitFor: { ms: 5 } });
    expect(openFetchControl({ wait_for: {} }, {})).toEqual({});
  });

  it('splits options carrying the fields: the options keep the stored part, headers and cookies leave them', () => {
    const { options, secrets } = splitOptionsFetchControl(
      { fetch_mode: 'auto' as const, max_pages: 3, headers: { A: 'secret-a' }, cookies: null, user_agent: 'UA/1', wait_for: null },
      'body.options',
    );
    expect(options).toEqual({ fetch_mode: 'auto', max_pages: 3, headers: null, cookies: null, user_agent: 'UA/1', wait_for: null });
    expect(openFetchControl(options, secrets)).toEqual({ scoped: { headers: { A: 'secret-a' }, cookies: {} }, userAgent: 'UA/1' });
  });

  it('stores an auth profile by id and opens it with the job owner; a control naming one never opens without its owner', () => {
    const { stored, secrets } = splitFetchControl({ auth_profile: 'p1' }, 'auto');
    expect(stored).toEqual({ user_agent: null, wait_for: null, auth_profile: 'p1' });
    expect(storedFetchControlSchema.parse(stored)).toEqual(stored);
    expect(openFetchControl(stored, secrets, { owner: 'u1' })).toEqual({ authProfile: { id: 'p1', owner: 'u1' } });
    expect(() => openFetchControl(stored, secrets)).toThrow(/opened with its job owner/);
  });
});
