import { diffRecords } from './diff';
import type { ChangeKind, FieldChange, MonitorItemRecord, MonitorObservation } from './monitor.types';
import { itemStateId } from './state-ids';
import { unitsOf, type KeyPlan } from './units';

export interface RunComparison {
  changes: Array<{ url: string; kind: ChangeKind; key: Record<string, unknown>; fields: FieldChange[] }>;
  save: MonitorItemRecord[];
  remove: string[];
  counts: { unchanged: number; changed: number; added: number; removed: number; failed: number };
}

export interface RunComparisonInput {
  monitorId: string;
  plan: KeyPlan;
  /** The first run of the monitor with first_run `baseline`: what it finds is recorded, not reported. */
  silentAdds: boolean;
  removeAfterMisses: number;
  /** The crawl completed: only then is a record missing from it a miss (a failed or cancelled run removes nothing). */
  runCompleted: boolean;
  /**
   * A list monitor's pages now: a record missing from this run whose page was taken out of the list is
   * removed at once (no misses to wait for: the page is not going to be fetched). Null for a crawl.
   */
  listed?: ReadonlySet<string> | null;
  observations: Array<Pick<MonitorObservation, 'url' | 'kind' | 'data'>>;
  items: MonitorItemRecord[];
  now: string;
}

/**
 * One run against the monitor's records (docs/monitors.md "Diffs"): a record found again is compared
 * field by field; a new one is `added`; one not found is a miss unless its page failed (a failure is
 * never a removal), and `removed` after `removeAfterMisses` misses in a row (at once when its page left
 * a list monitor's list).
 */
export function compareRun(input: RunComparisonInput): RunComparison {
  const out: RunComparison = { changes: [], save: [], remove: [], counts: { unchanged: 0, changed: 0, added: 0, removed: 0, failed: 0 } };
  const failedUrls = new Set(input.observations.filter((o) => o.kind === 'failed').map((o) => o.url));
  out.counts.failed = failedUrls.size;
  const current = new Map<string, ReturnType<typeof unitsOf>[number]>();
  for (const o of input.observations) {
    if (o.kind !== 'extracted' && o.kind !== 'unchanged') continue;
    for (const unit of unitsOf(input.plan, o.url, o.data)) if (!current.has(unit.id)) current.set(unit.id, unit);
  }
  for (const item of input.items) {
    const unit = current.get(item.unit_id);
    if (unit) {
      current.delete(item.unit_id);
      const fields = diffRecords(item.record, unit.record);
      if (fields.length) {
        out.counts.changed++;
        out.changes.push({ url: unit.url, kind: 'changed', key: item.key, fields });
      } else out.counts.unchanged++;
      // A record found as it was, on the same page, with no miss to clear, is not written again.
      if (fields.length || item.misses !== 0 || item.url !== unit.url)
        out.save.push({ ...item, url: unit.url, record: unit.record, misses: 0, updated_at: fields.length ? input.now : item.updated_at });
      continue;
    }
    if (failedUrls.has(item.url) || !input.runCompleted) continue;
    const misses = item.misses + 1;
    const unlisted = input.listed ? !input.listed.has(item.url) : false;
    if (misses < input.removeAfterMisses && !unlisted) {
      out.save.push({ ...item, misses });
      continue;
    }
    out.counts.removed++;
    out.changes.push({ url: item.url, kind: 'removed', key: item.key, fields: diffRecords(item.record, emptyLike(item.record)) });
    out.remove.push(item._id);
  }
  for (const unit of current.values()) {
    out.counts.added++;
    if (!input.silentAdds)
      out.changes.push({ url: unit.url, kind: 'added', key: unit.key, fields: diffRecords(emptyLike(unit.record), unit.record) });
    out.save.push({
      _id: itemStateId(input.monitorId, unit.id),
      monitor_id: input.monitorId,
      key: unit.key,
      unit_id: unit.id,
      url: unit.url,
      record: unit.record,
      misses: 0,
      first_seen_at: input.now,
      updated_at: input.now,
    });
  }
  return out;
}

/** `{}` for a record, so that an added or removed record lists its fields one by one. */
function emptyLike(record: unknown): unknown {
  return typeof record === 'object' && record !== null && !Array.isArray(record) ? {} : null;
}
