/** Webhook event types (docs/api.md "Webhooks"). `*` subscribes to all. */
export const WEBHOOK_EVENTS = [
  'job.started',
  'job.page',
  'job.completed',
  'job.failed',
  'job.cancelled',
  'monitor.changed',
  'monitor.failed',
  'auth_profile.failing',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Headers a webhook may not set: they belong to the transport or to the signature. */
export function isForbiddenHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return ['content-type', 'host', 'content-length', 'transfer-encoding', 'connection'].includes(lower) || lower.startsWith('webhook-');
}

/** RFC 7230 token characters for header names. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

export function subscribes(events: readonly string[], event: string): boolean {
  return events.length === 0 || events.includes('*') || events.includes(event);
}
