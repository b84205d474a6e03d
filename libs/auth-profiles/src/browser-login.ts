import type { BrowserScriptInput, BrowserScriptResult, BrowserStep } from '@app/fetch';
import type { BrowserLoginRecipe, LoggedInCheck, LoginCredentials, SessionState } from './auth-profile.types';
import { LoginFailed } from './form-login';
import { isLoginTarget, loggedOutReason } from './logged-in-check';

/*
 * A browser login (docs/auth-profiles.md "Browser logins"), for sites whose login needs JavaScript: the login page
 * opens in a fresh browser context confined to the profile's hosts (every connection elsewhere is refused by its own
 * guard proxy, behind the address guard and the page's proxy pool), the steps run in order with the credentials put
 * in where a step names them, and the cookies of the profile's hosts and the final page's local storage are the
 * session. The outcome is judged as a form login's is. Failures name the step, never a credential. Framework-free.
 */

/** Runs a confined browser script (Fetcher.browserScript through the page's proxy pool). */
export type LoginBrowser = (input: Omit<BrowserScriptInput, 'proxy'>) => Promise<BrowserScriptResult>;

export interface BrowserLoginInput {
  hosts: readonly string[];
  login: BrowserLoginRecipe;
  check: LoggedInCheck;
  credentials: LoginCredentials;
  /** The session's key in the page's proxy pool: the login's browser leaves from the session's proxy. */
  proxyKey?: string;
}

/** The script a recipe runs: a `fill` of a credential types its value (never stored in the step). */
export function scriptSteps(login: BrowserLoginRecipe, credentials: LoginCredentials): BrowserStep[] {
  return login.steps.map((step) => {
    if (step.action !== 'fill') return step;
    return { action: 'fill', selector: step.selector, value: 'credential' in step ? credentials[step.credential] : step.text };
  });
}

export async function browserLogin(input: BrowserLoginInput, browser: LoginBrowser | undefined): Promise<SessionState> {
  const { hosts, login, check, credentials, proxyKey } = input;
  if (!browser) throw new LoginFailed('the login runs in the browser, and browser rendering is disabled on this server');
  let page: BrowserScriptResult;
  try {
    page = await browser({
      url: login.url,
      hosts,
      steps: scriptSteps(login, credentials),
      ...(proxyKey !== undefined ? { proxyKey } : {}),
    });
  } catch (error) {
    // BrowserStepFailed names the step; anything else is reported without its message (it may quote a typed value).
    const name = (error as Error)?.name;
    const message = name === 'BrowserStepFailed' || name === 'AppError' ? (error as Error).message : 'the browser failed';
    throw new LoginFailed(`the browser login from ${login.url} failed: ${scrub(message, credentials)}`);
  }
  const judge = { hosts, login, check };
  if (isLoginTarget(judge, page.url))
    throw new LoginFailed(`after the browser login the page is the login page again (${page.url}): wrong credentials?`);
  const out = loggedOutReason(judge, page);
  if (out) throw new LoginFailed(`after the browser login, ${out}`);
  if (check.session_cookie && page.cookies[check.session_cookie] === undefined)
    throw new LoginFailed(`the browser login did not set the session cookie ${check.session_cookie}`);
  const kept = Object.keys(page.localStorage).length > 0;
  if (Object.keys(page.cookies).length === 0 && !kept)
    throw new LoginFailed("the browser login left no cookie and no local storage on the profile's hosts");
  return { cookies: page.cookies, ...(kept ? { local_storage: page.localStorage } : {}) };
}

/** A message with any credential in it replaced (a guard's message could quote a URL the page built from one). */
function scrub(message: string, credentials: LoginCredentials): string {
  let out = message;
  for (const value of [credentials.password, credentials.username]) if (value.length > 0) out = out.split(value).join('••••');
  return out;
}
