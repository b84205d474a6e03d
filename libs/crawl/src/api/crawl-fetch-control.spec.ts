import { AppError } from '@app/core';
import { fetchControlFor } from '@app/fetch';
import { resolveCrawlOptions } from '@app/sites';
import { crawlFetchControl } from './crawl-fetch-control';

describe('crawlFetchControl (fetch control under crawl options)', () => {
  it('takes headers and cookies out of the stored options into sealed secrets, keeps the User-Agent and wait_for', () => {
    const { options, secrets } = crawlFetchControl(
      resolveCrawlOptions({
        headers: { Authorization: 'Bearer secret-token', Cookie: 'a=1' },
        cookies: { session: 'abc123' },
        user_agent: 'MyAgent/1.0',
        wait_for: { selector: '#list' },
        fetch_mode: 'auto',
      }),
    );
    expect(options).toMatchObject({ headers: null, cookies: null, user_agent: 'MyAgent/1.0', wait_for: { selector: '#list' } });
    expect(JSON.stringify(options)).not.toContain('secret-token');
    expect(JSON.stringify(options)).not.toContain('abc123');
    const opened = fetchControlFor(null, secrets);
    expect(opened.scoped).toEqual({ headers: { Authorization: 'Bearer secret-token' }, cookies: { a: '1', session: 'abc123' } });
  });

  it('leaves options without fetch control as they are, with no secrets', () => {
    const resolved = resolveCrawlOptions({ max_pages: 5 });
    const { options, secrets } = crawlFetchControl(resolved);
    expect(options).toEqual(resolved);
    expect(secrets).toEqual({});
  });

  it('refuses wait_for with the static fetch mode, and a User-Agent given twice, at body.options', () => {
    let error: unknown;
    try {
      crawlFetchControl(
        resolveCrawlOptions({ wait_for: { ms: 500 }, fetch_mode: 'static', headers: { 'User-Agent': 'x' }, user_agent: 'y' }),
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).errors?.map((e) => e.location).sort()).toEqual(['body.options.user_agent', 'body.options.wait_for']);
  });
});
