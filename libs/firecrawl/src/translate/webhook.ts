import type { WebhookOption } from '../wire/scrape-options';

const EVENTS: Record<string, string> = {
  started: 'job.started',
  page: 'job.page',
  completed: 'job.completed',
  failed: 'job.failed',
};

/**
 * Firecrawl's `webhook` (an address, or `{url, headers, events}`) as a Gleaner inline webhook. The deliveries
 * are Gleaner's (Standard Webhooks signatures, Gleaner's event payloads: docs/api.md "Webhooks"), not
 * Firecrawl's `crawl.page` bodies (docs/firecrawl.md "Webhooks"); `metadata` is not echoed.
 */
export function gleanerWebhook(webhook: WebhookOption | null | undefined): Record<string, unknown> {
  if (!webhook) return {};
  if (typeof webhook === 'string') return { webhook_url: webhook };
  const headers = Object.entries(webhook.headers ?? {}).map(([name, value]) => ({ name, value }));
  // Each event once: the /v2 document puts no bound on the list, and Gleaner's webhook takes at most 10 events.
  const events = webhook.events ? [...new Set(webhook.events.map((event) => EVENTS[event]).filter(Boolean))] : undefined;
  return {
    webhook: {
      url: webhook.url,
      ...(headers.length > 0 ? { headers } : {}),
      ...(events && events.length > 0 ? { events: [...events, 'job.cancelled'] } : {}),
    },
  };
}
