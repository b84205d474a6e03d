import { AppError } from '@app/core';
import { RedirectStopped, type FetchOptions, type FetchResult } from '@app/fetch';
import type { ActiveSession, AuthSessions, LoginAgent } from './auth-sessions.service';
import { LogoutLinks } from './logout-links';
import { fetchLoggedIn, type SessionFetch } from './session-fetch';

const ref = { id: 'ap1', owner: 'u1' };
const session: ActiveSession = {
  ref,
  version: 1,
  cookies: { hosts: ['members.test'], cookies: { sid: 's1' } },
  judge: { hosts: ['members.test'], login: { url: 'http://members.test/login' }, check: { logged_out_statuses: [401] } as never },
  logout: new LogoutLinks(['members.test'], ['^/account/end-session']),
};
const sessions = { current: async () => session, renew: async () => session } as unknown as AuthSessions;
const agent = {} as LoginAgent;

/** A static fetch whose page redirects to `next`: it asks beforeRedirect, as the static fetcher does, and stops or lands. */
function redirectingTo(next: string, asked: string[]): SessionFetch {
  return async (_url: string, options: FetchOptions) => {
    asked.push(next);
    const stop = await options.beforeRedirect?.(next);
    if (stop) throw new RedirectStopped(stop, next);
    return { url: next, status: 200, html: '<p>x</p>', contentType: 'text/html', headers: {} } as unknown as FetchResult;
  };
}

describe('fetchLoggedIn: a redirect onto a logout URL of the profile', () => {
  it('is not followed: a caller that judges redirects gets RedirectStopped of kind logout_link, before its own rule is asked', async () => {
    const own: string[] = [];
    const options = { beforeRedirect: (next: string) => (own.push(next), null) };
    for (const next of ['http://members.test/logout', 'http://members.test/account/end-session?x=1']) {
      const error = await fetchLoggedIn(sessions, ref, agent, redirectingTo(next, []), 'http://members.test/leave', options).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RedirectStopped);
      expect(error).toMatchObject({ kind: 'logout_link', next, reason: expect.stringMatching(/would end the session/) });
    }
    expect(own).toEqual([]);
  });

  it('fails any other caller with fetch_error naming the URL', async () => {
    const error = await fetchLoggedIn(
      sessions,
      ref,
      agent,
      redirectingTo('http://members.test/sign-out', []),
      'http://members.test/x',
      {},
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      category: 'fetch_error',
      retryable: false,
      detail: expect.stringMatching(/^Redirected to http:\/\/members\.test\/sign-out, not followed: a logout link/),
    });
  });

  it("follows other redirects (another host's logout, an ordinary page) and asks the caller's rule for them", async () => {
    for (const next of ['http://outside.test/logout', 'http://members.test/members']) {
      const own: string[] = [];
      const page = await fetchLoggedIn(sessions, ref, agent, redirectingTo(next, []), 'http://members.test/x', {
        beforeRedirect: (n: string) => (own.push(n), null),
      });
      expect([page.url, own]).toEqual([next, [next]]);
    }
  });
});
