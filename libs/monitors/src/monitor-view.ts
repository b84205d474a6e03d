import { maskedFetchSecrets } from '@app/sites';
import type { MonitorChangeRecord, MonitorItemRecord, MonitorRecord, MonitorRunRecord } from './monitor.types';

/** The stored config less its internal flag (`has_key` says the same to the caller). */
const withoutByok = ({ byok_key: _byok, ...rest }: Record<string, unknown>) => rest;

export const runView = (r: MonitorRunRecord) => ({
  id: r._id,
  monitor_id: r.monitor_id,
  trigger: r.trigger,
  due_at: r.due_at,
  status: r.status,
  job_id: r.job_id,
  reason: r.reason,
  counts: r.counts,
  created_at: r.created_at,
  finished_at: r.finished_at,
});
export type RunView = ReturnType<typeof runView>;

export const monitorView = (m: MonitorRecord, lastRun: MonitorRunRecord | null, records: number) => ({
  id: m._id,
  name: m.name,
  url: m.url,
  urls: m.urls ?? null,
  url_count: m.urls?.length ?? null,
  site_id: m.site_id,
  schema_id: m.schema_id,
  schema: m.schema ?? null,
  options: { ...m.options, ...maskedFetchSecrets(m) },
  llm_config: m.llm_config ? { ...withoutByok(m.llm_config), has_key: m.sealed_secrets !== null } : null,
  extraction_mode: m.extraction_mode,
  paginate: m.paginate ?? null,
  schedule: m.schedule,
  key: m.key,
  notify: m.notify ? { targets: m.notify.targets.map((t) => String(t.key)), on: m.notify.on } : null,
  first_run: m.first_run,
  remove_after_misses: m.remove_after_misses,
  paused: m.paused,
  next_run_at: m.next_run_at,
  last_run: lastRun ? runView(lastRun) : null,
  runs_total: m.runs_total,
  consecutive_failures: m.consecutive_failures,
  records,
  created_at: m.created_at,
  updated_at: m.updated_at,
});
export type MonitorView = ReturnType<typeof monitorView>;

export const changeView = (c: MonitorChangeRecord) => ({
  id: c._id,
  run_id: c.run_id,
  detected_at: c.detected_at,
  url: c.url,
  kind: c.kind,
  key: c.key,
  fields: c.fields,
});

export const itemView = (i: MonitorItemRecord) => ({
  key: i.key,
  url: i.url,
  record: i.record,
  misses: i.misses,
  first_seen_at: i.first_seen_at,
  updated_at: i.updated_at,
});

/** A monitor in a list: its settings without a list monitor's URLs (`url_count` says how many; GET /monitors/{id} shows them). */
export const monitorListView = (view: MonitorView): Omit<MonitorView, 'urls'> => {
  const { urls: _urls, ...rest } = view;
  return rest;
};
