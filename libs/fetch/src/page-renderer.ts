import type { BrowserContext, Page, Response } from 'playwright';
import { AppError } from '@app/core';
import type { AddressGuard } from './address-guard';
import { detectBotWall } from './bot-wall-detector';
import { takeScreenshot, waitForInPage } from './browser-page-steps';
import type { NavigationState, SessionRouter } from './browser-routing';
import {
  beforeDeadline,
  BrowserDownload,
  checkRendered,
  isDownload,
  navigationError,
  parseUrl,
  redirectChain,
  tabCrashed,
} from './browser-outcomes';
import { fetchError } from './errors';
import { RedirectStopped, type FetchOptions, type FetchResult } from './fetch-types';

/** What the renderer renders with (DynamicFetcher's options, with their defaults applied). */
export interface PageRendererSettings {
  guard: AddressGuard;
  timeoutMs: number;
  /** After domcontentloaded, wait at most this long for network idle, then take what is there. */
  settleMs: number;
  /** How long to wait for a JavaScript challenge page to pass by itself. 0 disables. */
  challengeWaitMs: number;
  maxBytes: number;
  maxRedirects: number;
  viewport: { width: number; height: number };
}

/**
 * Renders one page in a prepared browser context (DynamicFetcher opens the context and its session router): the
 * navigation with its redirects, each checked by the guard; a bounded settle; a JavaScript challenge given time to
 * pass; the landed page checked (browser-outcomes.ts) and read, with its screenshot and raw bytes when asked.
 */
export class PageRenderer {
  private open = 0;

  constructor(private readonly settings: PageRendererSettings) {}

  /** Pages being rendered now. */
  get openPages(): number {
    return this.open;
  }

  async render(context: BrowserContext, url: string, options: FetchOptions, router: SessionRouter): Promise<FetchResult> {
    const { settleMs, challengeWaitMs, maxRedirects, viewport } = this.settings;
    const started = Date.now();
    const deadline = started + (options.timeoutMs ?? this.settings.timeoutMs);
    const maxBytes = options.maxBytes ?? this.settings.maxBytes;
    const blocked = router.blocked;
    const blockedBefore = blocked.length;

    const page = await context.newPage();
    this.open++;
    const navigation = router.track(page, deadline);
    // An auth profile's session: each main-frame redirect is judged before it is followed (its logout URLs never requested).
    navigation.stepRedirects = options.session !== undefined && options.beforeRedirect !== undefined;
    let crashed = false;
    page.on('crash', () => (crashed = true));
    let lastDocument: Response | undefined;
    page.on('response', (r) => {
      if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) lastDocument = r;
    });
    let lastFailedNavigation: { url: string; error: string } | undefined;
    page.on('requestfailed', (r) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame())
        lastFailedNavigation = { url: r.url(), error: r.failure()?.errorText ?? '' };
    });
    try {
      if (options.headers) await page.setExtraHTTPHeaders(options.headers);
      const { response, redirects: followed } = await this.navigate(page, url, navigation, deadline, options, blocked, blockedBefore).catch(
        (error: unknown) => {
          throw crashed ? tabCrashed(url) : error;
        },
      );
      if (options.waitFor) await waitForInPage(page, options.waitFor, deadline);
      // Bounded settle: network idle or the cap, whichever first; then take what is there.
      await page
        .waitForLoadState('networkidle', { timeout: Math.max(1, Math.min(settleMs, deadline - Date.now())) })
        .catch(() => undefined);

      let html = await this.content(page, deadline, () => crashed);
      let doc = lastDocument ?? response ?? undefined;
      let wall = detectBotWall(html, doc?.status() ?? 200, doc?.headers() ?? {});
      // A JavaScript challenge usually passes by itself and navigates to the real page.
      const challengeDeadline = Math.min(deadline, Date.now() + challengeWaitMs);
      while (wall.blocked && Date.now() < challengeDeadline) {
        await page.waitForTimeout(250);
        await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, challengeDeadline - Date.now()) }).catch(() => undefined);
        html = await this.content(page, deadline, () => crashed);
        doc = lastDocument ?? doc;
        wall = detectBotWall(html, doc?.status() ?? 200, doc?.headers() ?? {});
      }
      if (wall.blocked && doc?.status() !== undefined && doc.status() < 400) {
        // A 200 wall after the challenge passed into a new navigation: settle that one too.
        await page.waitForLoadState('networkidle', { timeout: 1000 }).catch(() => undefined);
      }

      this.assertLanded(page, navigation, lastFailedNavigation, blocked.slice(blockedBefore));
      const headers = doc?.headers() ?? {};
      const status = doc?.status() ?? 200;
      const redirects = [...followed, ...redirectChain(doc)];
      const { contentType, bytes } = checkRendered(
        { url, pageUrl: page.url(), ...(doc ? { document: { url: doc.url(), status, headers } } : {}), html, wall, redirects },
        { acceptPdf: options.acceptPdf, maxBytes, maxRedirects },
      );
      const screenshot = options.screenshot ? await takeScreenshot(page, options.screenshot, viewport.width, deadline) : undefined;
      // The document's bytes as the server sent them (the archive keeps them beside the rendered HTML).
      const raw = options.keepRaw ? await doc?.body().catch(() => undefined) : undefined;
      return {
        url: page.url(),
        status,
        headers,
        contentType,
        charset: 'utf-8', // page.content() is already decoded by the browser
        html,
        bytes,
        redirects,
        durationMs: Date.now() - started,
        mode: 'dynamic',
        blockedRequests: blocked.slice(blockedBefore),
        ...(screenshot ? { screenshot } : {}),
        ...(raw && raw.length <= maxBytes ? { raw } : {}),
      };
    } finally {
      this.open--;
      await page.close().catch(() => undefined);
    }
  }

  /**
   * Navigates to the URL, following the main-frame redirects the session router hands back (those of
   * requests that carried the caller's scoped headers, and all of a page that steps its redirects) as new
   * navigations, each judged by the caller's `beforeRedirect` first (a reason: `RedirectStopped`) and checked by the guard.
   */
  private async navigate(
    page: Page,
    url: string,
    navigation: NavigationState,
    deadline: number,
    options: FetchOptions,
    blocked: string[],
    blockedBefore: number,
  ): Promise<{ response: Response | null; redirects: string[] }> {
    const { guard, maxRedirects } = this.settings;
    const redirects: string[] = [];
    let target = parseUrl(url);
    for (;;) {
      await guard.checkUrl(target); // a clear ssrf_blocked before the browser is involved
      navigation.redirectTo = undefined;
      try {
        const response = await page.goto(target.href, { waitUntil: 'domcontentloaded', timeout: Math.max(1, deadline - Date.now()) });
        return { response, redirects };
      } catch (error) {
        if (navigation.redirectTo === undefined) {
          if (options.acceptPdf && isDownload(error)) throw new BrowserDownload(target.href);
          const mapped = navigationError(error, target.href, blocked.slice(blockedBefore));
          // A load that fails once its deadline has come failed because of it (the browser may report the load cut
          // at the deadline as a network error): a timeout, as for a navigation the deadline stopped itself.
          if (mapped.category === 'fetch_error' && Date.now() >= deadline)
            throw fetchError('timeout', `Rendering ${target.href} exceeded its deadline.`, { url: target.href });
          throw mapped;
        }
      }
      redirects.push(target.href);
      const next = new URL(navigation.redirectTo);
      next.hash = '';
      const stop = options.beforeRedirect ? await options.beforeRedirect(next.href) : null;
      if (stop) throw new RedirectStopped(stop, next.href);
      if (redirects.includes(next.href)) throw fetchError('fetch_error', `Redirect loop at ${next.href}.`, { url, retryable: false });
      if (redirects.length > maxRedirects)
        throw fetchError('fetch_error', `Too many redirects (more than ${maxRedirects}).`, { url, retryable: false });
      target = next;
    }
  }

  /**
   * page.content() fails while a navigation is in flight; retry until it is stable or the deadline. It also
   * never returns while the page's script keeps the tab busy (an endless loop), so it races the deadline.
   */
  private async content(page: Page, deadline: number, crashed: () => boolean): Promise<string> {
    for (;;) {
      try {
        return await beforeDeadline(page.content(), deadline, page.url());
      } catch (error) {
        if (crashed()) throw tabCrashed(page.url());
        if (error instanceof AppError) throw error;
        if (Date.now() >= deadline)
          throw fetchError('timeout', 'The page kept navigating until the deadline.', { url: page.url(), cause: error });
        await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
      }
    }
  }

  /**
   * The page's final state is a page, not the browser's error page, and the page never went anywhere the
   * guard refused: a script, a meta refresh or a form that navigates the tab to a forbidden address after
   * it loaded leaves `chrome-error://chromewebdata/` behind, which is a failed page, never content.
   */
  private assertLanded(
    page: Page,
    navigation: NavigationState,
    failed: { url: string; error: string } | undefined,
    blocked: string[],
  ): void {
    if (navigation.refused)
      throw fetchError('ssrf_blocked', `The page navigated to ${navigation.refused}, which the address guard refused.`, {
        url: navigation.refused,
      });
    if (!page.url().startsWith('chrome-error:')) return;
    const target = failed?.url ?? page.url();
    throw navigationError(new Error(failed?.error || 'navigation failed'), target, blocked);
  }
}
