import type { Page } from 'playwright';
import { fetchError } from './errors';
import type { ScreenshotKind, WaitFor } from './request-control';

/** The tallest full-page screenshot taken (Chromium's own limit is 16,384 px). */
export const MAX_SCREENSHOT_HEIGHT = 10_000;

/** wait_for: an element in the page (attached, visible or not), or a fixed time; both within the fetch's deadline. */
export async function waitForInPage(page: Page, waitFor: WaitFor, deadline: number): Promise<void> {
  const remaining = Math.max(1, deadline - Date.now());
  if ('ms' in waitFor) {
    if (waitFor.ms >= remaining)
      throw fetchError('timeout', `wait_for ${waitFor.ms} ms does not fit in the fetch's deadline.`, { url: page.url() });
    await page.waitForTimeout(waitFor.ms);
    return;
  }
  try {
    await page.waitForSelector(waitFor.selector, { state: 'attached', timeout: remaining });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError' || /Timeout \d+ms exceeded/.test((error as Error).message ?? '')) {
      throw fetchError('timeout', "The element of wait_for.selector was not in the page within the fetch's deadline.", { url: page.url() });
    }
    throw fetchError('fetch_error', `wait_for.selector failed: ${(error as Error).message}`, { url: page.url(), retryable: false });
  }
}

/** A PNG of the viewport, or of the whole page up to MAX_SCREENSHOT_HEIGHT. */
export async function takeScreenshot(page: Page, kind: ScreenshotKind, width: number, deadline: number): Promise<Buffer> {
  const timeout = Math.max(1, deadline - Date.now());
  try {
    if (kind === 'viewport') return await page.screenshot({ type: 'png', timeout });
    const height = Number(
      await page.evaluate('Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)'),
    );
    const clip = { x: 0, y: 0, width, height: Math.max(1, Math.min(height, MAX_SCREENSHOT_HEIGHT)) };
    return await page.screenshot({ type: 'png', fullPage: true, clip, timeout });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      throw fetchError('timeout', 'The screenshot did not finish within the deadline.', { url: page.url() });
    throw fetchError('fetch_error', `The screenshot failed: ${(error as Error).message}`, { url: page.url(), cause: error });
  }
}
