/**
 * The figures docs/capacity.md reads from bench-results/capacity.json (render-doc.ts): paths of the file,
 * and the sums, ratios and tables the template names, each computed from the file alone.
 */
import { featureFigures } from './feature-figures';
import { formatNumber } from './format-number';

export type Json = Record<string, any>;

/** bench-results/capacity.json, the parts the guide reads. */
export interface CapacityResults {
  machine: Json;
  runs: Record<string, Json>;
  summary: Json;
  projection: Json;
  /** bench-results/capacity-features.json, when there is one (the per-feature runs, features.ts). */
  features?: Json;
}

/** The projection's names of what saturates first, as the guide writes them. */
const LIMIT_NAMES: Record<string, string> = {
  crawler_replicas: 'crawler replicas',
  store_write_ops: 'store write rate',
  store_write_bytes: 'store write bytes',
  redis_commands: 'Redis commands',
  redis_cpu: 'Redis CPU',
};

/** The replica counts the template's text walks through ("4 replicas with raised page workers", "64 with the defaults"). */
export const REPLICA_COUNTS = [1, 4, 16, 64];

export const round = (x: number, digits = 0): number => Math.round(x * 10 ** digits) / 10 ** digits;

export function lookup(results: CapacityResults, path: string): unknown {
  return path.split('.').reduce<any>((o, k) => (o === undefined || o === null ? undefined : o[k]), results);
}

export function num(results: CapacityResults, path: string): number {
  const value = lookup(results, path);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`capacity.json has no number at ${path} (did every run of npm run bench:capacity succeed?)`);
  }
  return value;
}

/** The projection's two scenario lists, one entry per replica count. */
export function scenarios(results: CapacityResults): { dflt: Json[]; raised: Json[] } {
  const dflt = lookup(results, 'projection.scenarios.default_page_workers');
  const raised = lookup(results, 'projection.scenarios.page_workers_raised');
  if (!Array.isArray(dflt) || !Array.isArray(raised) || dflt.length !== raised.length) {
    throw new Error('capacity.json has no projection scenarios (run cluster_1 and cluster_2 of npm run bench:capacity)');
  }
  for (const list of [dflt, raised]) {
    const counts = list.map((s: Json) => s.replicas).join(', ');
    if (counts !== REPLICA_COUNTS.join(', ')) {
      throw new Error(`capacity.md.tmpl walks through ${REPLICA_COUNTS.join(', ')} replicas; capacity.json projects ${counts}`);
    }
  }
  return { dflt, raised };
}

const limitName = (key: string): string => {
  const name = LIMIT_NAMES[key];
  if (!name) throw new Error(`capacity.json names a limit the guide does not know: ${key}`);
  return name;
};

/** A published figure or an assumption as the tables write it: "3947 inserts/s", "70 % of a core". */
function valueWithUnit(v: { value: number; unit?: string }): string {
  const unit = v.unit ?? '';
  if (unit.startsWith('of ')) return `${round(v.value * 100)} % ${unit}`;
  return `${formatNumber(v.value)} ${unit}`.trim();
}

/** The figures the template names that are not a path of the file: each computed from the file alone. */
export function derivedFigures(results: CapacityResults): Record<string, string | number> {
  const n = (path: string) => num(results, path);
  const P = results.projection;
  const { dflt, raised } = scenarios(results);
  const cluster2Cpu = lookup(results, 'summary.cluster_2.cpu_per_page');
  if (typeof cluster2Cpu !== 'object' || cluster2Cpu === null) throw new Error('capacity.json has no summary.cluster_2 (run cluster_2)');
  const crawlerSum = (field: string) =>
    Object.keys(cluster2Cpu)
      .filter((k) => k.startsWith('crawler-'))
      .reduce((sum, k) => sum + n(`summary.cluster_2.cpu_per_page.${k}.${field}`), 0);
  const loads = Object.values(results.runs)
    .map((run) => run?.load_average_at_start)
    .filter((l): l is number => typeof l === 'number');
  const latencyModel = /^slow-(\d+)$/.exec(String(lookup(results, 'runs.latency_8.workload.model')));
  if (!latencyModel) throw new Error('capacity.json: runs.latency_8.workload.model is not a slow-<ms> model');
  const embeddedCap = round(
    (n('projection.inputs.assumed.cpu_target.value') * 1000) / n('summary.embedded.cpu_per_page.app.main_thread_net_ms'),
  );
  const targetPagesPerS = n('projection.target.pages_per_s');
  const storeWritesPerPage = n('projection.inputs.measured.store_write_commands_per_page.value');
  const targetStoreWrites = round(targetPagesPerS * storeWritesPerPage);
  const raised4 = raised[1].caps_pages_per_s.crawler_replicas;
  const counts: number[] = dflt.map((s) => s.replicas);

  return {
    idle_s: round(n('runs.cluster_1.idle.seconds')),
    load_range: loads.length > 0 ? `${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)}` : 'unknown',
    page_text_kb: round(n('runs.cluster_1.workload.pageBytes') / 1000),
    large_text_kb: round(n('runs.cluster_1_large.workload.pageBytes') / 1000),
    large_text_factor: round(n('runs.cluster_1_large.workload.pageBytes') / n('runs.cluster_1.workload.pageBytes'), 1),
    latency_model_ms: Number(latencyModel[1]),
    c2_crawler_ms: round(crawlerSum('net_ms'), 2),
    c2_crawler_main_ms: round(crawlerSum('main_thread_net_ms'), 2),
    large_extra_write_bytes:
      n('summary.cluster_1_large.store.per_page.write_request_bytes') - n('summary.cluster_1.store.per_page.write_request_bytes'),
    large_token_factor: round(n('summary.cluster_1_large.model.prompt_tokens_o200k') / n('summary.cluster_1.model.prompt_tokens_o200k'), 1),
    embedded_cap: embeddedCap,
    embedded_disk_kb: round(n('summary.embedded.disk_write_bytes_per_page') / 1024),
    embedded_disk_mb_at_cap: round((n('summary.embedded.disk_write_bytes_per_page') * embeddedCap) / 1e6),
    latency_8_share: round(n('summary.latency_8.share_of_bound') * 100),
    latency_24_share: round(n('summary.latency_24.share_of_bound') * 100),
    cpu_target_pct: round(n('projection.inputs.assumed.cpu_target.value') * 100),
    store_target_pct: round(n('projection.inputs.assumed.store_target.value') * 100),
    default_replica_vcpu: round(
      (n('projection.per_replica.pages_per_s_default_workers') * n('projection.inputs.measured.crawler_cpu_ms_per_page.value')) / 1000,
      2,
    ),
    raise_factor: round(n('projection.per_replica.cpu_cap_pages_per_s') / n('projection.per_replica.pages_per_s_default_workers')),
    replica_counts: `${counts.slice(0, -1).join(', ')} and ${counts[counts.length - 1]}`,
    projection_rows: dflt
      .map((a, i) => {
        const b = raised[i];
        const rate = (s: Json) => `${formatNumber(s.projected_pages_per_s)} (${formatNumber(s.pages_per_day)})`;
        return `| ${a.replicas} | ${rate(a)} | ${limitName(a.saturates_first)} | ${rate(b)} | ${limitName(b.saturates_first)} |`;
      })
      .join('\n'),
    projection_load_rows: raised
      .map((b) => {
        const t = b.at_that_rate;
        const cells = [
          t.store_write_commands_per_s,
          t.store_write_mb_per_s,
          t.redis_commands_per_s,
          t.model_requests_per_min,
          t.model_tokens_per_min,
        ];
        return `| ${b.replicas} | ${cells.map(formatNumber).join(' | ')} |`;
      })
      .join('\n'),
    raised_4_crawlers: raised4,
    raised_4_share:
      raised[1].saturates_first === 'crawler_replicas'
        ? round((raised4 / n('projection.shared_caps_pages_per_s.store_write_ops')) * 100)
        : 100,
    default_64_crawlers: dflt[3].caps_pages_per_s.crawler_replicas,
    default_64_share: round(
      (Math.min(dflt[3].caps_pages_per_s.crawler_replicas, n('projection.shared_caps_pages_per_s.store_write_ops')) /
        n('projection.shared_caps_pages_per_s.store_write_ops')) *
        100,
    ),
    // Crawler replicas that reach the store's write rate: with page workers raised (a replica's CPU bound) and with the defaults.
    replicas_raised_to_store: Math.ceil(
      n('projection.shared_caps_pages_per_s.store_write_ops') / n('projection.per_replica.cpu_cap_pages_per_s'),
    ),
    replicas_default_to_store: Math.ceil(
      n('projection.shared_caps_pages_per_s.store_write_ops') / n('projection.per_replica.pages_per_s_default_workers'),
    ),
    redis_at_store_cap: raised[3].at_that_rate.redis_commands_per_s,
    target_store_writes: targetStoreWrites,
    target_store_share: round((targetStoreWrites / n('projection.inputs.published.mongo_single_doc_writes_per_s.value')) * 100),
    target_redis: round(
      targetPagesPerS * n('projection.inputs.measured.redis_commands_per_page.value') +
        n('projection.target.replicas_default_page_workers') *
          n('projection.inputs.measured.redis_background_commands_per_s_per_replica.value'),
    ),
    // Page workers that let the raised replica count carry the target: page workers ÷ page wait ≥ its share.
    target_page_workers_raised: Math.ceil(
      (targetPagesPerS / n('projection.target.replicas_page_workers_raised')) * n('projection.inputs.assumed.page_wait_s.value'),
    ),
    target_model_tokens_per_min_k: round(n('projection.target.model_tokens_per_min') / 1000),
    target_model_tokens_per_day_m: round(n('projection.target.model_tokens_per_day') / 1e6),
    avg_write_bytes: round(n('projection.inputs.measured.store_write_request_bytes_per_page.value') / storeWritesPerPage),
    published_rows: Object.values<Json>(P.inputs.published)
      .map((v) => `| ${v.what} | ${valueWithUnit(v as { value: number; unit?: string })} | ${v.source} |`)
      .join('\n'),
    assumed_rows: Object.entries<Json>(P.inputs.assumed)
      .map(([k, v]) => `| \`${k}\` | ${valueWithUnit(v as { value: number; unit?: string })} | ${v.what} |`)
      .join('\n'),
    ...featureFigures(results.features),
  };
}
