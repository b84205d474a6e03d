import { splitFetchControl } from '@app/fetch';
import type { CrawlOptions } from '@app/sites';

/**
 * A crawl's or batch's fetch control (docs/scrape.md "Fetch control"), split out of its resolved options:
 * the job stores the User-Agent and wait_for with its options; headers and cookies leave the options and
 * travel sealed with the crawl (as a BYOK key does: in the queue message, then sealed in the crawl's state
 * for later owners, and in each page task), so they are never stored in the clear, shown or logged.
 */
export function crawlFetchControl(options: CrawlOptions): { options: CrawlOptions; secrets: Record<string, string> } {
  const control = splitFetchControl(
    {
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.cookies ? { cookies: options.cookies } : {}),
      ...(options.user_agent ? { user_agent: options.user_agent } : {}),
      ...(options.wait_for ? { wait_for: options.wait_for } : {}),
    },
    options.fetch_mode,
    'body.options',
  );
  return {
    options: {
      ...options,
      headers: null,
      cookies: null,
      user_agent: control.stored?.user_agent ?? null,
      wait_for: control.stored?.wait_for ?? null,
    },
    secrets: control.secrets,
  };
}
