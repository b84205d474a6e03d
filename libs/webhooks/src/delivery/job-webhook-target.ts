/** A webhook target stored on a job at request time. Saved webhooks are resolved live at each event. */
export interface JobWebhookTarget {
  /** Stable per job: `saved:<id>`, `inline` or `url`. */
  key: string;
  kind: 'saved' | 'inline' | 'url';
  webhook_id: string | null;
  url: string | null;
  /** Sealed secret (inline only). */
  secret: string | null;
  events: string[];
  headers: Array<{ name: string; value: string }>;
}
