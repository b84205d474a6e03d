import { AppError, SecretBox, type SecretSealer } from '@app/core';
import {
  maskedFetchSecrets,
  nextFetchSecrets,
  NO_FETCH_SECRETS,
  openFetchSecrets,
  savedCrawlOptions,
  sealFetchSecrets,
  SECRET_MASK,
  type FetchSecretMaps,
} from './saved-fetch-secrets';

/** The platform's sealer, built the same way (SecretBox, JSON text), without the framework. */
function sealer(secret = 'spec-secret-0123456789abcdefghijklmnop'): SecretSealer & { sealed: string[] } {
  const box = new SecretBox({ current: secret });
  const sealed: string[] = [];
  return {
    sealed,
    seal: (plaintext) => {
      const out = JSON.stringify(box.seal(plaintext, 'sealed-secret'));
      sealed.push(out);
      return out;
    },
    open: (text) => box.open(JSON.parse(text), 'sealed-secret'),
  };
}

function problems(run: () => unknown): Array<{ location: string; message: string }> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return ((error as AppError).errors ?? []).map(({ location, message }) => ({ location, message }));
  }
  throw new Error('no 422');
}

const STORED: FetchSecretMaps = {
  headers: { Authorization: 'Bearer tok-1', 'X-Team': 'blue' },
  cookies: { session: 'abc123', lang: 'de' },
};

describe('saved headers and cookies: keep, replace, remove', () => {
  it('keeps what an update leaves out, removes on null, replaces with a new map', () => {
    expect(nextFetchSecrets(STORED, {}, 'body.crawl_options').secrets).toEqual(STORED);
    expect(nextFetchSecrets(STORED, { headers: null }, 'body.crawl_options').secrets).toEqual({ headers: {}, cookies: STORED.cookies });
    expect(nextFetchSecrets(STORED, { cookies: { other: '1' } }, 'body.crawl_options').secrets).toEqual({
      headers: STORED.headers,
      cookies: { other: '1' },
    });
  });

  it('reads a masked value as the stored value of that name (a header in any case); names left out of a map are removed', () => {
    const { secrets } = nextFetchSecrets(
      STORED,
      { headers: { authorization: SECRET_MASK, 'X-New': 'n' }, cookies: { session: SECRET_MASK } },
      'body.crawl_options',
    );
    expect(secrets).toEqual({ headers: { authorization: 'Bearer tok-1', 'X-New': 'n' }, cookies: { session: 'abc123' } });
  });

  it('refuses a mask with nothing stored under its name, at the field, without any value in the message', () => {
    const found = problems(() =>
      nextFetchSecrets(STORED, { headers: { 'X-Gone': SECRET_MASK }, cookies: { Session: SECRET_MASK } }, 'body.crawl_options'),
    );
    expect(found.map((p) => p.location)).toEqual(['body.crawl_options.headers', 'body.crawl_options.cookies']);
    expect(found[0].message).toContain('X-Gone');
    expect(JSON.stringify(found)).not.toMatch(/tok-1|abc123/);
    // On create nothing is stored: a mask is never a value.
    expect(problems(() => nextFetchSecrets(NO_FETCH_SECRETS, { cookies: { a: SECRET_MASK } }, 'body.options'))[0].location).toBe(
      'body.options.cookies',
    );
  });

  it('normalises as a request does: a Cookie header joins the cookies, a User-Agent header is the user agent', () => {
    const { secrets, userAgent } = nextFetchSecrets(
      NO_FETCH_SECRETS,
      { headers: { Cookie: 'a=1; b=2', 'User-Agent': 'Agent/1', 'X-K': 'k' }, cookies: { b: '3' } },
      'body.crawl_options',
    );
    expect(secrets).toEqual({ headers: { 'X-K': 'k' }, cookies: { a: '1', b: '3' } });
    expect(userAgent).toBe('Agent/1');
    expect(
      problems(() => nextFetchSecrets(NO_FETCH_SECRETS, { headers: { 'User-Agent': 'a' }, user_agent: 'b' }, 'body.crawl_options')),
    ).toEqual([expect.objectContaining({ location: 'body.crawl_options.user_agent' })]);
  });
});

describe('saved headers and cookies: sealed at rest, shown masked', () => {
  it('seals the values, keeps the names in the clear, and opens them again', () => {
    const box = sealer();
    const stored = sealFetchSecrets(box, STORED);
    expect(stored.fetch_secret_names).toEqual({ headers: ['Authorization', 'X-Team'], cookies: ['session', 'lang'] });
    expect(stored.fetch_secrets_sealed).toEqual(box.sealed[0]);
    expect(JSON.stringify(stored)).not.toMatch(/tok-1|blue|abc123|"de"/);
    expect(openFetchSecrets(box, stored)).toEqual(STORED);
    // Another GLEANER_SECRET cannot open them.
    expect(() => openFetchSecrets(sealer('another-secret-0123456789abcdefghijklmno'), stored)).toThrow(AppError);
  });

  it('keeps nothing for no headers and no cookies', () => {
    const box = sealer();
    expect(sealFetchSecrets(box, NO_FETCH_SECRETS)).toEqual({ fetch_secret_names: null, fetch_secrets_sealed: null });
    expect(box.sealed).toEqual([]);
    expect(openFetchSecrets(box, { fetch_secrets_sealed: null })).toEqual({ headers: {}, cookies: {} });
    expect(openFetchSecrets(box, {})).toEqual({ headers: {}, cookies: {} });
  });

  it('shows each stored name with the mask, and leaves out what is not stored', () => {
    expect(maskedFetchSecrets(sealFetchSecrets(sealer(), STORED))).toEqual({
      headers: { Authorization: SECRET_MASK, 'X-Team': SECRET_MASK },
      cookies: { session: SECRET_MASK, lang: SECRET_MASK },
    });
    expect(maskedFetchSecrets({ fetch_secret_names: { headers: [], cookies: ['s'] } })).toEqual({ cookies: { s: SECRET_MASK } });
    expect(maskedFetchSecrets({})).toEqual({});
  });

  it('is never a valid header or cookie value (beyond Latin-1)', () => {
    expect(/^[\t\x20-\x7e\x80-\xff]*$/.test(SECRET_MASK)).toBe(false);
  });
});

describe('savedCrawlOptions (a site record or a monitor)', () => {
  it('takes headers and cookies out of the options into the sealed fields; a User-Agent header becomes user_agent', () => {
    const box = sealer();
    const saved = savedCrawlOptions(
      box,
      { max_pages: 5, headers: { 'X-K': 'secret-k', 'User-Agent': 'UA/2' }, cookies: { s: 'secret-s' } },
      null,
      'body.crawl_options',
    );
    expect(saved.options).toEqual({ max_pages: 5, user_agent: 'UA/2' });
    expect(saved.fetch_secret_names).toEqual({ headers: ['X-K'], cookies: ['s'] });
    expect(JSON.stringify(saved)).not.toContain('secret-');
    expect(openFetchSecrets(box, saved)).toEqual({ headers: { 'X-K': 'secret-k' }, cookies: { s: 'secret-s' } });
  });

  it('on an update without headers or cookies leaves the sealed fields as they are and opens nothing', () => {
    const box = sealer();
    const current = sealFetchSecrets(box, STORED);
    const opened = jest.spyOn(box, 'open');
    expect(savedCrawlOptions(box, { max_pages: 2 }, current, 'body.crawl_options')).toEqual({ options: { max_pages: 2 } });
    // A new map without masks needs nothing stored either.
    const replaced = savedCrawlOptions(box, { headers: { A: '1' }, cookies: null }, current, 'body.crawl_options');
    expect(opened).not.toHaveBeenCalled();
    expect(openFetchSecrets(box, replaced)).toEqual({ headers: { A: '1' }, cookies: {} });
  });

  it('on an update with a mask or one map left out opens the stored values to keep them', () => {
    const box = sealer();
    const current = sealFetchSecrets(box, STORED);
    const kept = savedCrawlOptions(box, { headers: { Authorization: SECRET_MASK } }, current, 'body.crawl_options');
    expect(openFetchSecrets(box, kept)).toEqual({ headers: { Authorization: 'Bearer tok-1' }, cookies: STORED.cookies });
    const removed = savedCrawlOptions(box, { headers: null, cookies: null }, current, 'body.crawl_options');
    expect(removed).toEqual({ options: {}, fetch_secret_names: null, fetch_secrets_sealed: null });
  });
});
