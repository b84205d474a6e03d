/**
 * The figures of docs/capacity.md's "What each feature adds per page", from bench-results/capacity-features.json
 * (features.ts; render-doc.ts reads it beside capacity.json as `features`). No CPU: those runs are niced beside
 * other work, and only their counts are quoted.
 */
import type { Json } from './doc-figures';
import { formatNumber } from './format-number';

/** A per-page change as the table writes it: +0.25, −1, 0. */
export function signed(value: number): string {
  if (value === 0) return '0';
  return value > 0 ? `+${formatNumber(value)}` : `−${formatNumber(-value)}`;
}

/**
 * Changes of a breakdown smaller than this are not named: per-second work (the client's polls of the job, lease renewals)
 * divided by the pages moves by about this much with the crawl's duration.
 */
export const NAMED_CHANGE = 0.05;

/** The largest changes of a breakdown, `name +n` each (at most `most`, each at least NAMED_CHANGE), or `none`. */
function largest(changes: Record<string, number> | undefined, most: number): string {
  const entries = Object.entries(changes ?? {})
    .filter(([, v]) => Math.abs(v) >= NAMED_CHANGE)
    .slice(0, most);
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `\`${k}\` ${signed(v)}`).join(', ');
}

/** Dates of the feature file's runs, as a range of days (`2026-12-02`), and their load averages at start. */
function when(features: Json): { days: string; load: string } {
  const runs = Object.values<Json>(features.runs ?? {});
  const days = [...new Set(runs.map((run) => String(run.date ?? '').slice(0, 10)).filter((d) => d !== ''))].sort();
  const loads = runs.map((run) => run.load_average_at_start).filter((l): l is number => typeof l === 'number');
  return {
    days: days.length <= 1 ? (days[0] ?? 'unknown') : `${days[0]} to ${days[days.length - 1]}`,
    load: loads.length > 0 ? `${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)}` : 'unknown',
  };
}

/** The template's `feature_*` figures; none when the features file is absent (the template then names a figure not held). */
export function featureFigures(features: Json | undefined): Record<string, string | number> {
  const summary = features?.summary as Json | undefined;
  if (!summary?.base || !summary.features) return {};
  const rows = Object.values<Json>(summary.features).map((f) => {
    const o = f.own_per_page as Json;
    const d = f.run_delta_per_page as Json;
    // Commands made once a crawl (the collection's creation, its drop at the end) are under 0.005 a page: not named.
    const which = Object.entries<number>(o.by_command ?? {})
      .filter(([, v]) => v >= 0.005)
      .map(([k, v]) => `\`${k}\` ${formatNumber(v)}`);
    const cells = [
      f.what,
      formatNumber(o.write_commands),
      formatNumber(o.read_commands),
      formatNumber(o.docs_written),
      formatNumber(o.docs_returned),
      which.length > 0 ? which.join(', ') : 'none',
      '0',
      signed(d.model_calls),
      `${signed(d.store.write_commands)} writes, ${d.redis_commands === null ? 'Redis not counted' : `${signed(d.redis_commands)} Redis`}; ${formatNumber(Math.round(f.crawl_seconds))} s (${largest(d.store_commands_by_command_and_collection, 2)})`,
    ];
    return `| ${cells.join(' | ')} |`;
  });
  const base = summary.base as Json;
  const { days, load } = when(features as Json);
  // Feature runs that ended in an error have no row: the guide says so, with the error.
  const failed = Object.entries<Json>(features?.runs ?? {})
    .filter(([name, run]) => name.startsWith('feature_') && typeof run.error === 'string' && !(name in summary.features))
    .map(([name, run]) => `\`${name}\` (${String(run.error).split('\n')[0]})`);
  return {
    feature_rows: rows.join('\n'),
    feature_missing:
      failed.length === 0
        ? 'Every feature run of the file completed.'
        : `Not in the table: ${failed.join(', ')}: the run ended in that error, and is to be made again.`,
    feature_days: days,
    feature_load_range: load,
    feature_base_pages: base.pages,
    feature_base_seconds: Math.round(summary.base_crawl_seconds),
    feature_base_store_writes: base.store.write_commands,
    feature_base_docs_written: base.store.docs_written,
    feature_base_redis: base.redis?.commands ?? 'not counted',
  };
}
