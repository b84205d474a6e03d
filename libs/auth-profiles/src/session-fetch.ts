import { AppError } from '@app/core';
import { RedirectStopped, type AuthProfileRef, type FetchOptions, type FetchResult } from '@app/fetch';
import { authFailed, RELOGINS_PER_PAGE, type ActiveSession, type AuthSessions, type LoginAgent } from './auth-sessions.service';
import { isLoginTarget, loggedOutReason } from './logged-in-check';

/** A fetch that takes the session's cookies and a redirect veto (Fetcher.fetch, StaticFetcher.fetch). */
export type SessionFetch = (url: string, options: FetchOptions) => Promise<FetchResult>;

/**
 * A page fetched with an auth profile's session (docs/auth-profiles.md "Sessions"): its cookies go along to the
 * profile's hosts, and an answer that shows it logged out (a redirect to the login page, judged before the
 * caller's own redirect rules; a logged-out status; the profile's check) is fetched once more after one fresh
 * login (RELOGINS_PER_PAGE); still logged out, the page fails `auth_failed`. The page loader's and POST /map's.
 *
 * A redirect onto one of the profile's logout URLs (LogoutLinks, the rule a crawl's links follow) is never
 * followed, judged after the login redirect and before the caller's own rules ("Logout links"): a caller that
 * judges redirects itself (it gave `beforeRedirect`: a crawl's, a batch's or a monitor's page) gets a
 * `RedirectStopped` of kind `logout_link`, as for its own stops (the crawl map then has the page `skipped`,
 * `logout_link`); any other fails with `fetch_error`, naming the URL it was sent to.
 */
export async function fetchLoggedIn(
  sessions: AuthSessions,
  ref: AuthProfileRef,
  agent: LoginAgent,
  fetch: SessionFetch,
  url: string,
  options: FetchOptions,
): Promise<FetchResult> {
  let session = await sessions.current(ref, agent);
  for (let relogins = 0; ; relogins++) {
    const answer = await fetchJudged(fetch, url, options, session);
    if (answer.page) return answer.page;
    if (relogins >= RELOGINS_PER_PAGE)
      throw authFailed(`The page ${url} is still logged out after a fresh login of auth profile ${ref.id}: ${answer.loggedOut}.`);
    session = await sessions.renew(ref, session.version, agent);
  }
}

async function fetchJudged(
  fetch: SessionFetch,
  url: string,
  options: FetchOptions,
  session: ActiveSession,
): Promise<{ page: FetchResult; loggedOut?: undefined } | { page?: undefined; loggedOut: string }> {
  const loginRedirect = 'it goes to the login page';
  let logout: { next: string; why: string } | undefined;
  try {
    const page = await fetch(url, {
      ...options,
      session: session.cookies,
      beforeRedirect: (next) => {
        if (isLoginTarget(session.judge, next)) return loginRedirect;
        const why = session.logout.why(next);
        if (why) {
          logout = { next, why };
          return why;
        }
        return options.beforeRedirect?.(next) ?? null;
      },
    });
    const loggedOut = loggedOutReason(session.judge, page);
    return loggedOut ? { loggedOut } : { page };
  } catch (error) {
    if (error instanceof RedirectStopped && error.reason === loginRedirect)
      return { loggedOut: `redirected to the login page ${error.next}` };
    if (error instanceof RedirectStopped && logout && error.next === logout.next) {
      if (options.beforeRedirect) throw new RedirectStopped(logout.why, logout.next, 'logout_link');
      throw new AppError('upstream-failure', `Redirected to ${logout.next}, not followed: ${logout.why}.`, {
        category: 'fetch_error',
        retryable: false,
        extensions: { url: logout.next },
      });
    }
    const status = error instanceof AppError ? error.extensions?.status : undefined;
    const where = error instanceof AppError ? error.extensions?.url : undefined;
    if (typeof status === 'number' && typeof where === 'string') {
      const loggedOut = loggedOutReason(session.judge, { url: where, status });
      if (loggedOut) return { loggedOut };
    }
    throw error;
  }
}
