import { AppError } from '@app/core';
import { openFetchControl, splitOptionsFetchControl } from '@app/fetch';
import { withSavedSecrets } from './crawl-fetch-control';
import { resolveCrawlOptions, type CrawlOptions } from './dto/crawl-options.dto';

/** A crawl's options split as the crawl intake splits them (the fields under `body.options`). */
const crawlFetchControl = (options: CrawlOptions) => splitOptionsFetchControl(options, 'body.options');

describe('splitOptionsFetchControl (fetch control under crawl options)', () => {
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
    const opened = openFetchControl(null, secrets);
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

describe('withSavedSecrets (a request over a saved site or monitor)', () => {
  const saved = { headers: { Authorization: 'Bearer site', 'X-Team': 'blue' }, cookies: { session: 'site-s', lang: 'de' } };

  it('merges name by name: the request wins for a name it gives (a header in any case), the saved ones fill in the rest', () => {
    const layer = withSavedSecrets({ headers: { authorization: 'Bearer mine' }, cookies: { session: 'mine' }, max_pages: 3 }, saved);
    expect(layer).toEqual({
      max_pages: 3,
      headers: { 'X-Team': 'blue', authorization: 'Bearer mine' },
      cookies: { lang: 'de', session: 'mine' },
    });
    const opened = openFetchControl(null, crawlFetchControl(resolveCrawlOptions(layer)).secrets).scoped;
    expect(opened).toEqual({ headers: { 'X-Team': 'blue', authorization: 'Bearer mine' }, cookies: { lang: 'de', session: 'mine' } });
  });

  it("lets a cookie in the request's Cookie header win over the saved cookie of that name", () => {
    const layer = withSavedSecrets({ headers: { Cookie: 'session=from-header' } }, saved);
    const opened = openFetchControl(null, crawlFetchControl(resolveCrawlOptions(layer)).secrets).scoped;
    expect(opened?.cookies).toEqual({ lang: 'de', session: 'from-header' });
  });

  it('takes only the saved ones when the request gives none, and nothing from nothing', () => {
    expect(withSavedSecrets(undefined, saved)).toEqual({ headers: saved.headers, cookies: saved.cookies });
    expect(withSavedSecrets({ max_depth: 2 }, null)).toEqual({ max_depth: 2, headers: null, cookies: null });
    expect(withSavedSecrets({ max_depth: 2 }, { headers: {}, cookies: {} })).toEqual({ max_depth: 2, headers: null, cookies: null });
  });

  it("reads a request's User-Agent header as its user_agent, so it wins over a saved user_agent; both in one request stay a 422", () => {
    const layer = withSavedSecrets({ headers: { 'User-Agent': 'Mine/1' } }, null);
    expect(layer).toEqual({ user_agent: 'Mine/1', headers: null, cookies: null });
    expect(crawlFetchControl(resolveCrawlOptions(layer, { user_agent: 'Site/1' })).options.user_agent).toBe('Mine/1');
    const both = withSavedSecrets({ headers: { 'User-Agent': 'a' }, user_agent: 'b' }, null);
    expect(() => crawlFetchControl(resolveCrawlOptions(both))).toThrow(AppError);
  });
});
