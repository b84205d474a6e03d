/*
 * An auth profile (docs/auth-profiles.md): the hosts it applies to, how to log in, how to tell a logged-out
 * answer, and its session. Framework-free types shared by the resource and the session side.
 */

/** An HTTP form login: the login page's form is read (its hidden fields, the CSRF token among them) and posted. */
export interface FormLoginRecipe {
  type: 'form';
  /** The login page (its host is one of the profile's hosts). */
  url: string;
  username_field: string;
  password_field: string;
  /** The hidden field that carries the CSRF token; the login fails when the form has none. Null: not checked. */
  csrf_field: string | null;
  /** Which form of the login page (default: the one holding the password field). */
  form_selector: string | null;
}

/** One step of a browser login: `fill` types a credential (or a fixed text) into an element. */
export type BrowserLoginStep =
  | { action: 'goto'; url: string }
  | { action: 'fill'; selector: string; credential: 'username' | 'password' }
  | { action: 'fill'; selector: string; text: string }
  | { action: 'click'; selector: string }
  | { action: 'wait_for'; selector: string }
  | { action: 'wait_for'; url_path: string };

/** A login run in the browser (for sites whose login needs JavaScript): open `url`, then the steps in order. */
export interface BrowserLoginRecipe {
  type: 'browser';
  /** The login page (its host is one of the profile's hosts). */
  url: string;
  steps: BrowserLoginStep[];
}

export type LoginRecipe = FormLoginRecipe | BrowserLoginRecipe;

/** How a page's answer shows a logged-out state (besides a redirect to the login URL, always). */
export interface LoggedInCheck {
  /** An element only a logged-in page has: its absence on an HTML page is logged out. */
  logged_in_selector: string | null;
  /** An element only a logged-out page has (a login form). */
  logged_out_selector: string | null;
  /** A path (prefix) of the profile's hosts that logged-out pages are sent to, besides the login URL's. */
  logged_out_path: string | null;
  /** A cookie the session must hold after a login (a login that does not set it failed). */
  session_cookie: string | null;
  /** Answer statuses that mean logged out. */
  logged_out_statuses: number[];
}

export const DEFAULT_LOGGED_OUT_STATUSES = [401, 403];

/** The credentials, sealed at rest (AES-256-GCM under GLEANER_SECRET), never shown again. */
export interface LoginCredentials {
  username: string;
  password: string;
}

/** The session a login obtained: its cookies, for the profile's hosts only. */
export interface SessionState {
  cookies: Record<string, string>;
  /** A browser login's final page's local storage (browser fetches of the profile's hosts get it). */
  local_storage?: Record<string, string>;
}

export interface AuthProfileRecord {
  _id: string;
  user_id: string;
  organization_id: string;
  name: string;
  /** Lower-case host names the session (and the credentials) may go to. */
  hosts: string[];
  login: LoginRecipe;
  check: LoggedInCheck;
  /**
   * RE2 patterns (searched in a link's path and query) of the site's own logout links, besides the logout words a
   * crawl always leaves alone (logout-links.ts). Absent on profiles made before it: none.
   */
  logout_patterns?: string[];
  /** A session older than this is renewed before its next page (null: only when a page shows it logged out). */
  session_ttl_seconds: number | null;
  credentials_sealed: string;
  /** The session, sealed like the credentials; null before the first login. */
  session_sealed: string | null;
  /** Grows by one with each login: a page that saw version N logged out asks for a login only while N is current. */
  session_version: number;
  /** When the session was obtained (ms since epoch), 0 before the first login. */
  session_at_ms: number;
  /** One login at a time per profile across every replica: the holder's token and the lock's end (ms since epoch). */
  login_lock_until: number;
  login_lock_owner: string | null;
  /** Logins that failed in a row (reset by a successful login or an update of the login). */
  login_failures: number;
  last_login_error: string | null;
  logins: number;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}
