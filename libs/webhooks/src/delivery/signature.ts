import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with
 * the UTF-8 bytes of the secret (docs/api.md "Webhooks"). Receivers verify it with the `standardwebhooks`
 * package (`new Webhook(secret, { format: 'raw' })`).
 */
export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
