import type { BrowserContext } from 'playwright';
import type { ScopedRequestData, SessionCookies } from './request-control';

/**
 * Gives a new session context what its caller holds for it: an auth profile's session (host-only cookies of each
 * profile host and its local storage, docs/auth-profiles.md), then the scoped cookies of the scope host, which win by
 * name. Cookies are host-only: the browser sends them to their host and nowhere else.
 */
export async function seedSession(
  context: Pick<BrowserContext, 'addCookies' | 'addInitScript'>,
  session: SessionCookies | undefined,
  scoped: ScopedRequestData | undefined,
): Promise<void> {
  const sessionCookies = Object.entries(session?.cookies ?? {});
  for (const host of sessionCookies.length > 0 ? (session?.hosts ?? []) : []) {
    await context.addCookies(sessionCookies.map(([name, value]) => ({ name, value, url: `http://${host}/` })));
  }
  const items = session?.localStorage ?? {};
  if (Object.keys(items).length > 0) await context.addInitScript({ content: localStorageScript(session!.hosts, items) });
  const cookies = Object.entries(scoped?.cookies ?? {});
  const scopeHost = scoped?.host;
  if (scopeHost !== undefined && cookies.length > 0) {
    // Host-only cookies of the scope host: the browser sends them to that host and nowhere else.
    await context.addCookies(cookies.map(([name, value]) => ({ name, value, url: `http://${scopeHost}/` })));
  }
}

/**
 * An init script giving the pages of the session's hosts the local storage a browser login kept (before the
 * page's own scripts run); pages of other hosts get nothing.
 */
export function localStorageScript(hosts: readonly string[], items: Record<string, string>): string {
  return `(() => { try { if (${JSON.stringify(hosts)}.includes(location.hostname.toLowerCase())) for (const [k, v] of Object.entries(${JSON.stringify(items)})) localStorage.setItem(k, v); } catch (e) {} })();`;
}
