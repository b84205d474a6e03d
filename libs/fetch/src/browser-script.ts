import type { Response } from 'playwright';
import type { DynamicFetcher } from './dynamic-fetcher';
import type { ProxyPool } from './proxy-pool/proxy-pool';

/*
 * A scripted browser session confined to a few hosts: an auth profile's browser login (docs/auth-profiles.md
 * "Browser logins"). The page opens `url`, then runs the steps (fill, click, go to, wait for an element or a
 * path) in one fresh context whose own guard proxy refuses every host but `hosts`; what is left is the page's
 * final state, the cookies of those hosts and the final page's local storage. A failure names the step (its
 * number, action and selector or URL) and never a value typed into the page nor the browser's own message
 * (which may quote it).
 */

export type BrowserStep =
  | { action: 'goto'; url: string }
  | { action: 'fill'; selector: string; value: string }
  | { action: 'click'; selector: string }
  | { action: 'wait_for'; selector: string }
  | { action: 'wait_for'; url_path: string };

export interface BrowserScriptInput {
  url: string;
  hosts: readonly string[];
  steps: readonly BrowserStep[];
  /** For the whole script (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The proxy pool every connection goes through, behind the guard (docs/proxies.md). */
  proxy?: ProxyPool;
  /** The session's key in the pool (ProxyPool.pick): a login leaves from the proxy its session's pages will use. */
  proxyKey?: string;
}

export interface BrowserScriptResult {
  url: string;
  status: number;
  contentType: string;
  html: string;
  /** Cookies of the hosts (host-only ones and those of a parent domain of one), by name. */
  cookies: Record<string, string>;
  /** The final page's local storage, when that page is on one of the hosts. */
  localStorage: Record<string, string>;
}

/** Why a script failed: the step and what happened, never a typed value. */
export class BrowserStepFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrowserStepFailed';
  }
}

const SETTLE_MS = 5_000;

/** What a step is called in a message: its number, its action and its selector or URL (never its value). */
export function describeStep(step: BrowserStep, index: number): string {
  const target = 'url' in step ? step.url : 'url_path' in step ? `path ${step.url_path}` : step.selector;
  return `step ${index + 1} (${step.action} ${target})`;
}

export async function runBrowserScript(fetcher: DynamicFetcher, input: BrowserScriptInput): Promise<BrowserScriptResult> {
  const deadline = Date.now() + (input.timeoutMs ?? 30_000);
  const left = () => Math.max(1, deadline - Date.now());
  const hosts = input.hosts.map((h) => h.toLowerCase());
  const onHosts = (url: string) => {
    try {
      return hosts.includes(new URL(url).hostname.toLowerCase());
    } catch {
      return false;
    }
  };
  const { context, router, close } = await fetcher.openConfined(hosts, {
    signal: input.signal,
    proxy: input.proxy,
    ...(input.proxyKey !== undefined ? { proxyKey: input.proxyKey } : {}),
  });
  try {
    const page = await context.newPage();
    const navigation = router.track(page, deadline);
    let lastDocument: Response | undefined;
    page.on('response', (r) => {
      if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) lastDocument = r;
    });
    const refusedHost = (): string | undefined => {
      const refused = navigation.refused ?? router.blocked.find((url) => !onHosts(url));
      if (!refused) return undefined;
      try {
        return new URL(refused).hostname;
      } catch {
        return 'another host';
      }
    };
    const run = async (what: string, work: () => Promise<unknown>) => {
      try {
        await work();
      } catch (error) {
        const host = refusedHost();
        if (host) throw new BrowserStepFailed(`${what}: the page went to ${host}, which is not one of the profile's hosts`);
        const name = (error as Error)?.name;
        if (name === 'TimeoutError' || Date.now() >= deadline) throw new BrowserStepFailed(`${what}: not done within the login's deadline`);
        throw new BrowserStepFailed(`${what} failed in the browser`);
      }
      const host = navigation.refused ? refusedHost() : undefined;
      if (host) throw new BrowserStepFailed(`${what}: the page went to ${host}, which is not one of the profile's hosts`);
    };
    await run(`opening ${input.url}`, () => page.goto(input.url, { waitUntil: 'domcontentloaded', timeout: left() }));
    for (const [index, step] of input.steps.entries()) {
      const what = describeStep(step, index);
      if (step.action === 'goto') await run(what, () => page.goto(step.url, { waitUntil: 'domcontentloaded', timeout: left() }));
      else if (step.action === 'fill') await run(what, () => page.fill(step.selector, step.value, { timeout: left() }));
      else if (step.action === 'click') await run(what, () => page.click(step.selector, { timeout: left() }));
      else if ('selector' in step) await run(what, () => page.waitForSelector(step.selector, { state: 'attached', timeout: left() }));
      else {
        const path = step.url_path;
        await run(what, () => page.waitForURL((url) => url.pathname.startsWith(path), { waitUntil: 'domcontentloaded', timeout: left() }));
      }
    }
    await page.waitForLoadState('networkidle', { timeout: Math.min(SETTLE_MS, left()) }).catch(() => undefined);
    let html = '';
    await run('reading the page after the login', async () => {
      html = await page.content();
    });
    const url = page.url();
    const cookies: Record<string, string> = {};
    for (const cookie of await context.cookies()) {
      const domain = cookie.domain.replace(/^\./, '').toLowerCase();
      if (hosts.some((host) => host === domain || host.endsWith(`.${domain}`))) cookies[cookie.name] = cookie.value;
    }
    let localStorage: Record<string, string> = {};
    if (onHosts(url)) {
      const stored = await page.evaluate('JSON.stringify(Object.fromEntries(Object.entries(localStorage)))').catch(() => '{}');
      localStorage = JSON.parse(String(stored)) as Record<string, string>;
    }
    const headers = lastDocument?.headers() ?? {};
    return {
      url,
      status: lastDocument?.status() ?? 200,
      contentType: (headers['content-type'] ?? 'text/html').split(';')[0].trim().toLowerCase(),
      html,
      cookies,
      localStorage,
    };
  } finally {
    await close();
  }
}
