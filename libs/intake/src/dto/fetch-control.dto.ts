import { FetchCookiesProperty, FetchHeadersProperty, UserAgentProperty, WaitForProperty, type WaitForDto } from '@app/sites';
import { JobWebhookFields } from '@app/webhooks';

/**
 * The fetch control and webhook fields of a single-page job request (extract, scrape); docs/scrape.md
 * "Fetch control". Headers and cookies go to the page's host only and never into the job record,
 * logs, captures or errors.
 */
export class JobFetchFields extends JobWebhookFields {
  @FetchHeadersProperty()
  headers?: Record<string, string>;

  @FetchCookiesProperty()
  cookies?: Record<string, string>;

  @UserAgentProperty()
  user_agent?: string;

  @WaitForProperty()
  wait_for?: WaitForDto;
}
