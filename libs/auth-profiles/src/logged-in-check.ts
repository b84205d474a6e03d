import { selectOne } from 'css-select';
import { parseHtml, type AnyNode, type Element } from '@app/content';
import type { FormLoginRecipe, LoggedInCheck } from './auth-profile.types';

/*
 * Telling a logged-out answer from a logged-in one (docs/auth-profiles.md "Logged out"): only answers of the
 * profile's own hosts are judged (a crawl that left them carries no session, so nothing there can be logged
 * out). Framework-free.
 */

/** What a judge needs of a profile. */
export interface SessionJudge {
  hosts: readonly string[];
  login: Pick<FormLoginRecipe, 'url'>;
  check: LoggedInCheck;
}

/** What a judge reads of an answer. */
export interface JudgedAnswer {
  url: string;
  status: number;
  contentType?: string;
  html?: string;
}

const onProfileHost = (judge: SessionJudge, url: URL) => judge.hosts.includes(url.hostname.toLowerCase());

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** Whether a URL (a redirect target, a final URL) is the profile's login page or its logged-out path. */
export function isLoginTarget(judge: SessionJudge, url: string): boolean {
  const target = parse(url);
  const login = parse(judge.login.url);
  if (!target || !login || !onProfileHost(judge, target)) return false;
  if (target.pathname === login.pathname) return true;
  const path = judge.check.logged_out_path;
  return path !== null && target.pathname.startsWith(path);
}

/** Why an answer shows a logged-out state, or null when it does not (or is not the profile's to judge). */
export function loggedOutReason(judge: SessionJudge, answer: JudgedAnswer): string | null {
  const url = parse(answer.url);
  if (!url || !onProfileHost(judge, url)) return null;
  if (judge.check.logged_out_statuses.includes(answer.status)) return `the site answered HTTP ${answer.status}`;
  if (isLoginTarget(judge, answer.url)) return 'the answer is the login page';
  const { logged_in_selector: inside, logged_out_selector: outside } = judge.check;
  if ((inside || outside) && answer.html !== undefined && /html/.test(answer.contentType ?? 'text/html')) {
    const document = parseHtml(answer.html);
    if (outside && selectOne<AnyNode, Element>(outside, document)) return `the page matches the logged-out selector ${outside}`;
    if (inside && answer.status < 400 && !selectOne<AnyNode, Element>(inside, document))
      return `the page lacks the logged-in selector ${inside}`;
  }
  return null;
}
