import type { JobWebhookTarget } from '@app/jobs';
import type { Paginate } from '@app/extraction';
import type { StoredLlmConfig } from '@app/llm';
import type { MonitorSchedule } from './schedule';

export const CHANGE_KINDS = ['added', 'changed', 'removed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
/** What `notify.on` may name: the change kinds a `monitor.changed` event carries, and `failed` for `monitor.failed`. */
export const NOTIFY_KINDS = ['changed', 'added', 'removed', 'failed'] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];
export const FIRST_RUN_MODES = ['added', 'baseline'] as const;
export type FirstRunMode = (typeof FIRST_RUN_MODES)[number];

export const RUN_STATUSES = ['starting', 'running', 'completed', 'failed', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_TRIGGERS = ['schedule', 'manual'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** A stored monitor (`monitors`). */
export interface MonitorRecord {
  _id: string;
  user_id: string;
  organization_id: string;
  name: string;
  url: string | null;
  /** A list monitor's pages (canonical, distinct): its runs are batch jobs; null for a crawl from `url` or the site. */
  urls?: string[] | null;
  site_id: string | null;
  /** Inline schema as given (re-parsed at each run), or null with schema_id. */
  schema: unknown;
  schema_id: string | null;
  /** The crawl options of every run, without headers and cookies (sealed below). */
  options: Record<string, unknown>;
  /** The names of the options' headers and cookies, in the clear (shown masked); null when none. Absent on older records. */
  fetch_secret_names?: { headers: string[]; cookies: string[] } | null;
  /** Their values, sealed by the SECRET_SEALER (@app/sites saved-fetch-secrets.ts). */
  fetch_secrets_sealed?: string | null;
  /** llm_config without its api_key (see sealed_secrets). */
  llm_config: StoredLlmConfig | null;
  /** A key given at creation, sealed (AES-256-GCM under GLEANER_SECRET) as `{llm_api_key}`; null: the tenant's stored keys. */
  sealed_secrets: string | null;
  extraction_mode: 'model' | 'auto';
  /** Each page's list read over its next pages (docs/monitors.md "Paginated lists"); null or absent (older records): none. */
  paginate?: Paginate | null;
  schedule: MonitorSchedule;
  key: string[];
  notify: { targets: JobWebhookTarget[]; on: NotifyKind[] } | null;
  first_run: FirstRunMode;
  remove_after_misses: number;
  paused: boolean;
  /** Interval schedules count their slots from here (creation, or the last resume). */
  anchor_at: string;
  /** The next due slot (the run key's time) and when it starts (slot + jitter); null while paused. */
  next_slot_at: string | null;
  next_run_at: string | null;
  last_run_id: string | null;
  last_run_at: string | null;
  last_run_status: RunStatus | null;
  runs_total: number;
  consecutive_failures: number;
  /** A run has recorded this monitor's records once (the first run's `first_run` rule is spent). */
  baseline_done: boolean;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

export interface RunCounts {
  unchanged: number;
  changed: number;
  added: number;
  removed: number;
  failed: number;
  pages_fetched: number;
  not_modified: number;
  skipped_by_hash: number;
  skipped_by_lastmod: number;
  model_calls: number;
  tokens_input: number;
  tokens_output: number;
  cost_usd: number;
}

export const emptyCounts = (): RunCounts => ({
  unchanged: 0,
  changed: 0,
  added: 0,
  removed: 0,
  failed: 0,
  pages_fetched: 0,
  not_modified: 0,
  skipped_by_hash: 0,
  skipped_by_lastmod: 0,
  model_calls: 0,
  tokens_input: 0,
  tokens_output: 0,
  cost_usd: 0,
});

/**
 * One run (`monitor_runs`). A scheduled run's `_id` is `<monitor>:<due slot>`: inserting it is the claim,
 * so each slot starts once whichever replica ticks first (docs/monitors.md "Scheduling").
 */
export interface MonitorRunRecord {
  _id: string;
  monitor_id: string;
  user_id: string;
  trigger: RunTrigger;
  due_at: string;
  status: RunStatus;
  job_id: string | null;
  /** Why a slot was skipped or a run failed. */
  reason: string | null;
  counts: RunCounts;
  created_at: string;
  finished_at: string | null;
  [key: string]: unknown;
}

/** What the last run saw of a page (`monitor_pages`, `_id` = `<monitor>:<url hash>`): the page worker's memory. */
export interface MonitorPageRecord {
  _id: string;
  monitor_id: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  text_hash: string | null;
  links: string[];
  data: unknown;
  fetched_at: string;
  misses: number;
  [key: string]: unknown;
}

/** The current record of one key (`monitor_items`, `_id` = `<monitor>:<key hash>`). */
export interface MonitorItemRecord {
  _id: string;
  monitor_id: string;
  key: Record<string, unknown>;
  /** The key as compared (normalised values), units.ts. */
  unit_id: string;
  url: string;
  record: unknown;
  misses: number;
  first_seen_at: string;
  updated_at: string;
  [key: string]: unknown;
}

export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

/** One change (`monitor_changes`), kept GLEANER_MONITOR_HISTORY_DAYS. */
export interface MonitorChangeRecord {
  _id: string;
  monitor_id: string;
  user_id: string;
  run_id: string;
  detected_at: string;
  url: string;
  kind: ChangeKind;
  key: Record<string, unknown>;
  fields: FieldChange[];
  [key: string]: unknown;
}

/**
 * What a page worker saw of one page in a monitor's run (`monitor_observations`, `_id` = `<job>:<url hash>`);
 * the run's end turns them into changes.
 */
export interface MonitorObservation extends PageObservation {
  _id: string;
  at: string;
  [key: string]: unknown;
}

/** What a page worker reports of one page of a monitor's run. */
export interface PageObservation {
  job_id: string;
  monitor_id: string;
  url: string;
  /** `navigation`: a page only crawled for its links (not extracted). */
  kind: 'extracted' | 'unchanged' | 'navigation' | 'failed' | 'gone';
  /** How an unchanged page was known: a 304, the text hash, or the sitemap's lastmod. */
  via: 'not_modified' | 'hash' | 'lastmod' | null;
  data: unknown;
  http_status: number | null;
  etag: string | null;
  last_modified: string | null;
  text_hash: string | null;
  links: string[];
  /**
   * An unchanged page whose validators, text hash and links are what the monitor remembers: its page
   * memory needs only its new visit time (written in bulk at the run's end, not page by page).
   */
  memory_same?: boolean;
  model_call: boolean;
  tokens_input: number;
  tokens_output: number;
  cost_usd: number;
}
