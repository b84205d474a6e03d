/**
 * The rewriting of a document's example before it runs (docs/contributing.md "Executable documents"): the
 * service address, the API key and the example sites' hosts are replaced by the harness's own; nothing else.
 * After rewriting, every address left must be loopback (or a name the service resolves to loopback), or the
 * example is refused before it runs.
 */

/** The host of docs/auth-profiles.md's examples, served by the login fixture (test/fixtures/login-site). */
export const LOGIN_EXAMPLE_HOST = 'members.example';

export interface RewriteTargets {
  /** The started service, e.g. http://127.0.0.1:41234 */
  serviceUrl: string;
  /** Its admin key (glk_…). */
  key: string;
  /** The fixture quotes site standing in for https://quotes.toscrape.com */
  quotesSiteUrl: string;
  /**
   * The login fixture standing in for https://members.example (docs/auth-profiles.md): `http://members.example:<port>`,
   * the name resolved to 127.0.0.1 by the service (GLEANER_RESOLVE), so it keeps its name in a profile's `hosts`.
   */
  loginSiteUrl?: string;
}

/** The example hosts the documents may use, each with the fixture that stands in for it. */
export const EXAMPLE_HOSTS = ['quotes.toscrape.com', LOGIN_EXAMPLE_HOST] as const;

/** Commands a reader runs once to set up, which the harness has done itself (it builds and starts the service). */
const SETUP_COMMANDS = new Set(['npm install', 'npm run build', 'npm install && npm run build']);

export function rewriteExample(code: string, targets: RewriteTargets): string {
  const service = new URL(targets.serviceUrl);
  const login = targets.loginSiteUrl;
  return code
    .replace(/https?:\/\/quotes\.toscrape\.com/g, targets.quotesSiteUrl)
    .replace(/https?:\/\/members\.example(?![\w.:-])/g, (found) => login ?? found)
    .replace(/https?:\/\/localhost:8080/g, targets.serviceUrl)
    .replace(/\blocalhost:8080/g, service.host)
    .replace(/\bglk_(\.\.\.|…)/g, targets.key)
    .replace(/\bnpx gleaner\b/g, 'gleaner');
}

/** A setup command the harness has already done: not run. */
export function isSetupCommand(text: string): boolean {
  return SETUP_COMMANDS.has(text.replace(/\s+/g, ' ').trim());
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The non-loopback addresses in a text: `scheme://host…` whose host is not loopback, and bare `host.tld/…`
 * (what curl would take for a URL). Empty means the example may run. `resolvedToLoopback`: names the service
 * resolves to 127.0.0.1 itself (the login fixture's), which only the service is sent to.
 */
export function nonLoopbackAddresses(text: string, resolvedToLoopback: readonly string[] = []): string[] {
  const found = new Set<string>();
  const loopback = (host: string) => LOOPBACK.has(host.toLowerCase()) || resolvedToLoopback.includes(host.toLowerCase());
  for (const m of text.matchAll(/\b([a-z][a-z0-9+.-]*):\/\/(\[[^\]]*\]|[^/\s'"\\:)]+)/gi)) {
    if (!loopback(m[2])) found.add(`${m[1]}://${m[2]}`);
  }
  for (const m of text.matchAll(/(?<![\w./:@-])((?:[a-z0-9-]+\.)+[a-z]{2,})(?::\d+)?\//gi)) {
    if (!loopback(m[1])) found.add(m[1]);
  }
  return [...found];
}
