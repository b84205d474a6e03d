import { selectAll, selectOne } from 'css-select';
import { parseHtml, type AnyNode, type Element } from '@app/content';
import type { FetchOptions, FetchResult } from '@app/fetch';
import type { FormLoginRecipe, LoggedInCheck, LoginCredentials, SessionState } from './auth-profile.types';
import { isLoginTarget, loggedOutReason } from './logged-in-check';

/*
 * An HTTP form login (docs/auth-profiles.md "Form login"): the login page is fetched, its form read (every
 * hidden field, the CSRF token among them, is posted back), the credentials posted, and the cookies the
 * profile's hosts set along the way kept as the session. Every request is the caller's `http`: the page
 * loader's static fetcher, so the address guard vets every hop and the page's proxy pool carries it, as
 * for the page itself. Nothing leaves the profile's hosts: a redirect elsewhere ends the login, and a form
 * that posts elsewhere is refused before the credentials are sent. Failures name URLs, statuses and field
 * names, never a credential or a cookie value. Framework-free.
 */

/** A static fetch that answers 4xx and 5xx instead of throwing (StaticFetcher.fetchRaw behind the guard and the pool). */
export type LoginHttp = (url: string, options: FetchOptions) => Promise<FetchResult>;

/** Why a login failed (the message says what, never a credential). */
export class LoginFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoginFailed';
  }
}

export interface LoginInput {
  hosts: readonly string[];
  login: FormLoginRecipe;
  check: LoggedInCheck;
  credentials: LoginCredentials;
  /** The session's key in the page's proxy pool: every request of the login goes through the session's proxy. */
  proxyKey?: string;
}

/** Logs in; the session's cookies, or LoginFailed. */
export async function formLogin(input: LoginInput, http: LoginHttp): Promise<SessionState> {
  const { hosts, login, check, credentials, proxyKey } = input;
  const cookies: Record<string, string> = {};
  const onHost = (url: URL) => hosts.includes(url.hostname.toLowerCase());
  const options: FetchOptions = {
    session: { hosts, cookies, ...(proxyKey !== undefined ? { proxyKey } : {}) },
    onSetCookie: (url, headers) => {
      if (onHost(url)) for (const header of headers) keepCookie(cookies, header);
    },
    beforeRedirect: (next) => (onHost(new URL(next)) ? null : "it leaves the profile's hosts"),
  };
  const page = await request(http, login.url, options);
  if (page.status >= 400) throw new LoginFailed(`the login page ${login.url} answered HTTP ${page.status}`);

  const form = findForm(page.html, login);
  if (!form)
    throw new LoginFailed(`the login page ${page.url} has no login form${login.form_selector ? ` matching ${login.form_selector}` : ''}`);
  const method = (form.attribs.method ?? 'get').toLowerCase();
  if (method !== 'post')
    throw new LoginFailed(`the login form of ${page.url} is not posted (method ${method}): credentials never go in a URL`);
  const action = new URL(form.attribs.action || page.url, page.url);
  if (!onHost(action))
    throw new LoginFailed(`the login form of ${page.url} posts to ${action.host}, which is not one of the profile's hosts`);
  const hidden = hiddenFields(form);
  if (login.csrf_field && hidden[login.csrf_field] === undefined)
    throw new LoginFailed(`the login form of ${page.url} has no hidden field ${login.csrf_field} (the CSRF token)`);

  const answer = await request(http, action.href, {
    ...options,
    form: { ...hidden, [login.username_field]: credentials.username, [login.password_field]: credentials.password },
  });
  if (answer.status >= 400) throw new LoginFailed(`the login post to ${action.href} answered HTTP ${answer.status}`);
  const judge = { hosts, login, check };
  if (isLoginTarget(judge, answer.url))
    throw new LoginFailed(`the site answered the login with its login page again (${answer.url}): wrong credentials?`);
  const out = loggedOutReason(judge, answer);
  if (out) throw new LoginFailed(`after the login, ${out}`);
  if (check.session_cookie && cookies[check.session_cookie] === undefined)
    throw new LoginFailed(`the login did not set the session cookie ${check.session_cookie}`);
  if (Object.keys(cookies).length === 0) throw new LoginFailed("the login set no cookie on the profile's hosts");
  return { cookies };
}

async function request(http: LoginHttp, url: string, options: FetchOptions): Promise<FetchResult> {
  try {
    return await http(url, options);
  } catch (error) {
    throw new LoginFailed(`the login request to ${url} failed: ${(error as Error).message}`);
  }
}

function findForm(html: string, login: FormLoginRecipe): Element | null {
  const document = parseHtml(html);
  if (login.form_selector) return selectOne<AnyNode, Element>(login.form_selector, document);
  for (const form of selectAll<AnyNode, Element>('form', document)) {
    if (selectOne<AnyNode, Element>(`input[name="${login.password_field}"]`, form)) return form;
  }
  return null;
}

function hiddenFields(form: Element): Record<string, string> {
  const out: Record<string, string> = {};
  for (const input of selectAll<AnyNode, Element>('input[type="hidden" i][name]', form))
    out[input.attribs.name] = input.attribs.value ?? '';
  return out;
}

/** One Set-Cookie header into the jar: `name=value` kept, a cookie expired by Max-Age or Expires removed. */
export function keepCookie(jar: Record<string, string>, header: string): void {
  const [pair, ...attributes] = header.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return;
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  const expired = attributes.some((attribute) => {
    const [key, raw = ''] = attribute.split('=').map((part) => part.trim());
    if (key.toLowerCase() === 'max-age') return Number(raw) <= 0;
    if (key.toLowerCase() === 'expires') return Date.parse(raw) <= Date.now();
    return false;
  });
  if (expired) delete jar[name];
  else jar[name] = value;
}
