import { AppError } from '@app/core';
import { fetchControlFor, fetchSecretValues, splitFetchControl, storedFetchControlSchema } from './stored-fetch-control';

describe('stored fetch control', () => {
  it('stores the user agent and wait_for, seals headers and cookies, and puts the two back together for the worker', () => {
    const { stored, secrets } = splitFetchControl(
      { headers: { 'X-Token': 'tok-1234', Cookie: 'a=1; b=2', 'User-Agent': 'Bot/1' }, cookies: { b: '3' }, wait_for: { ms: 500 } },
      'dynamic',
    );
    expect(stored).toEqual({ user_agent: 'Bot/1', wait_for: { ms: 500 } });
    expect(JSON.stringify(stored)).not.toContain('tok-1234');
    expect(fetchControlFor(stored, secrets)).toEqual({
      scoped: { headers: { 'X-Token': 'tok-1234' }, cookies: { a: '1', b: '3' } },
      userAgent: 'Bot/1',
      waitFor: { ms: 500 },
    });
    expect(fetchSecretValues(secrets)).toEqual(['tok-1234']);
  });

  it('stores nothing and seals nothing without fetch control', () => {
    expect(splitFetchControl({}, 'auto')).toEqual({ stored: null, secrets: {} });
    expect(fetchControlFor(null, {})).toEqual({});
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
});
