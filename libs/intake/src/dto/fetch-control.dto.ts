import { WithFetchControl } from '@app/fetch';
import { JobWebhookFields } from '@app/webhooks';

/**
 * The webhook fields and the fetch control group (@app/fetch) of a single-page job request (extract,
 * scrape); docs/scrape.md "Fetch control". Headers and cookies go to the page's host only and never into
 * the job record, logs, captures or errors.
 */
export class JobFetchFields extends WithFetchControl(JobWebhookFields) {}
