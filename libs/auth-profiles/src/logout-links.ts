import { RE2JS } from 're2js';

/** Words that name a link ending the session, as a path segment (an extension aside) or a query name or value. */
export const LOGOUT_WORDS = ['logout', 'log-out', 'log_out', 'signout', 'sign-out', 'sign_out', 'logoff'] as const;

const WORDS = new Set<string>(LOGOUT_WORDS);

/** The most `logout_patterns` a profile may have, and the longest one. */
export const MAX_LOGOUT_PATTERNS = 20;
export const MAX_LOGOUT_PATTERN_LENGTH = 500;

function word(part: string): boolean {
  let text: string;
  try {
    text = decodeURIComponent(part);
  } catch {
    text = part;
  }
  text = text.toLowerCase();
  return WORDS.has(text) || WORDS.has(text.replace(/\.[a-z0-9]{1,5}$/, ''));
}

/**
 * Which links a crawl with an auth profile does not follow (docs/auth-profiles.md "Logout links"): on the profile's
 * hosts, a link whose path has a logout word as a segment (`/logout`, `/account/Sign-Out.php`), whose query has one
 * as a parameter's name or value (`?action=logout`, `?logoff`), or whose path and query match one of the profile's
 * `logout_patterns` (RE2, searched in path + query). Following one would end the session every later page needs.
 * Links to other hosts are followed: the session never goes there, so their logout ends nothing of ours.
 */
export class LogoutLinks {
  private readonly hosts: Set<string>;
  private readonly patterns: RE2JS[];

  constructor(hosts: string[], patterns: string[]) {
    this.hosts = new Set(hosts.map((h) => h.toLowerCase()));
    this.patterns = patterns.map((p) => RE2JS.compile(p));
  }

  /** Why `url` (absolute) would end the session, or null to follow it. */
  why(url: string): string | null {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return null;
    }
    if (!this.hosts.has(target.hostname.toLowerCase())) return null;
    if (target.pathname.split('/').some((segment) => segment && word(segment)))
      return "a logout link of the auth profile's site (its path names a logout): following it would end the session";
    for (const [name, value] of target.searchParams)
      if (word(name) || word(value))
        return "a logout link of the auth profile's site (its query names a logout): following it would end the session";
    const pathAndQuery = target.pathname + target.search;
    if (this.patterns.some((re) => re.matcher(pathAndQuery).find()))
      return "matches the auth profile's logout_patterns: following it would end the session";
    return null;
  }
}

/** Null when `pattern` is a valid logout pattern, else why not. */
export function logoutPatternProblem(pattern: string): string | null {
  if (pattern.length > MAX_LOGOUT_PATTERN_LENGTH) return `must be at most ${MAX_LOGOUT_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(pattern);
    return null;
  } catch {
    return 'must be a valid RE2 regular expression (no backreferences or lookaround)';
  }
}
