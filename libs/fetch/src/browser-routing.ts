import type { BrowserContext, Page, Request, Route } from 'playwright';
import { AppError } from '@app/core';
import { AddressGuard, normaliseHost } from './address-guard';
import { inScope, type ScopedRequestData } from './request-control';

/** What one page's main-frame navigation left for the renderer: a redirect it must follow itself. */
export interface NavigationState {
  redirectTo?: string;
  /**
   * Every main-frame redirect is handed to the renderer (the navigation made with `route.fetch` without following
   * redirects), so that its caller's `beforeRedirect` judges each hop before a request goes there: a fetch
   * carrying an auth profile's session, whose logout URLs must never be requested.
   */
  stepRedirects?: boolean;
  /** A main-frame navigation the guard refused (the page went, or tried to go, somewhere forbidden). */
  refused?: string;
  /** Deadline of the fetch (ms since epoch), for requests the router makes itself. */
  deadline: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The route handler of a browser session (one BrowserContext):
 * - blocks resource types the session does not load (images, media, fonts by default);
 * - refuses hosts the address guard refuses, early (the GuardedProxy still pins every connection);
 * - adds the caller's scoped headers to requests for their host only. Playwright would carry headers
 *   set with `route.continue` over to redirect targets on any host, so such a request is made with
 *   `route.fetch` without following redirects: a redirect of a sub-resource goes back to the browser
 *   (which follows it without the headers), and a main-frame redirect is handed to the renderer,
 *   which navigates to it as a new request (with the headers again only if it is in scope);
 * - makes a page's main-frame navigations that way too when its state asks (`stepRedirects`): Playwright's
 *   routes never see a redirect hop, so only the renderer can judge each one before it is requested.
 * Cookies are the browser's own: added to the context for the scope host, they follow its rules.
 */
export class SessionRouter {
  readonly blocked: string[] = [];
  private readonly hostVerdicts = new Map<string, Promise<boolean>>();
  private readonly navigations = new WeakMap<Page, NavigationState>();

  constructor(
    private readonly guard: AddressGuard,
    private readonly blockResources: ReadonlySet<string>,
    private readonly scoped: ScopedRequestData | undefined,
    private readonly scopeHost: string | undefined,
  ) {}

  async install(context: BrowserContext): Promise<void> {
    await context.route('**/*', (route) => this.handle(route));
  }

  /** Starts tracking a page's main-frame navigations (one state per page). */
  track(page: Page, deadline: number): NavigationState {
    const state: NavigationState = { deadline };
    this.navigations.set(page, state);
    return state;
  }

  private async handle(route: Route): Promise<void> {
    const request = route.request();
    if (this.blockResources.has(request.resourceType())) return route.abort('blockedbyclient');
    let url: URL | undefined;
    try {
      url = new URL(request.url());
    } catch {
      url = undefined; // unparsable URLs are the browser's problem; the proxy still guards the connection
    }
    if (url && /^(https?|wss?):$/.test(url.protocol) && !(await this.allowed(url))) {
      this.blocked.push(request.url());
      const state = request.isNavigationRequest() ? this.mainFrameNavigation(request) : undefined;
      if (state) state.refused ??= request.url();
      return route.abort('blockedbyclient');
    }
    const scopedHeaders = this.scoped?.headers ?? {};
    const withHeaders =
      url !== undefined && this.scopeHost !== undefined && Object.keys(scopedHeaders).length > 0 && inScope(url, this.scopeHost);
    const stepped = request.isNavigationRequest() ? this.mainFrameNavigation(request) : undefined;
    if (!withHeaders && !stepped?.stepRedirects) return route.continue();
    const page = request.frame().page();
    const state = this.navigations.get(page);
    const mainNavigation = request.isNavigationRequest() && request.frame() === page.mainFrame();
    let response;
    try {
      response = await route.fetch({
        headers: { ...request.headers(), ...(withHeaders ? scopedHeaders : {}) },
        maxRedirects: 0,
        timeout: Math.max(1, (state?.deadline ?? Date.now() + 30_000) - Date.now()),
      });
    } catch {
      return route.abort('failed');
    }
    const location = response.headers()['location'];
    if (mainNavigation && state && REDIRECT_STATUSES.has(response.status()) && location) {
      state.redirectTo = new URL(location, request.url()).href;
      return route.abort('aborted');
    }
    return route.fulfill({ response });
  }

  /** The navigation state of the page whose main frame `request` navigates, if it does. */
  private mainFrameNavigation(request: Request): NavigationState | undefined {
    let frame;
    try {
      frame = request.frame();
    } catch {
      // A navigation issued before its frame exists (a new page's or popup's first): none the renderer tracks.
      return undefined;
    }
    const page = frame.page();
    return frame === page.mainFrame() ? this.navigations.get(page) : undefined;
  }

  private allowed(url: URL): Promise<boolean> {
    const host = normaliseHost(url.hostname);
    let verdict = this.hostVerdicts.get(host);
    if (!verdict) {
      verdict = this.guard.resolvePublic(host).then(
        () => true,
        (error: unknown) => !(error instanceof AppError && error.category === 'ssrf_blocked'),
      );
      this.hostVerdicts.set(host, verdict);
    }
    return verdict;
  }
}
