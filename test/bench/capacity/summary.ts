/**
 * Per-page figures from the runs of the capacity benchmark: each phase total divided by the pages the
 * crawl completed. "gross" is the crawl phase as measured; "net" first takes off what the same processes
 * spent while idle (per second × the phase's seconds), which is what a page adds on a cluster that is up
 * anyway. Background work (driver heartbeats, queue polling, schedulers) is reported per second apart.
 */
import { isBackground, type CommandCounts, type WireCounts } from './mongo-wire-counter';
import type { Phase } from './phases';
import type { RunResult } from './runs';

const r = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

const WRITE = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'bulkWrite']);
const READ = new Set(['find', 'aggregate', 'getMore', 'count', 'distinct']);

/** gross and net per page of one quantity, given its crawl-phase and idle-phase totals. */
function perPage(crawlTotal: number, idleTotal: number, crawl: Phase, idle: Phase, pages: number, digits = 2) {
  const idleRate = idle.seconds > 0 ? idleTotal / idle.seconds : 0;
  return { gross: r(crawlTotal / pages, digits), net: r(Math.max(0, crawlTotal - idleRate * crawl.seconds) / pages, digits) };
}

function sumCounts(counts: WireCounts, keep: (key: string) => boolean): CommandCounts {
  const total: CommandCounts = { n: 0, request_bytes: 0, reply_bytes: 0, docs_written: 0, docs_returned: 0 };
  for (const [key, c] of Object.entries(counts)) {
    if (!keep(key)) continue;
    total.n += c.n;
    total.request_bytes += c.request_bytes;
    total.reply_bytes += c.reply_bytes;
    total.docs_written += c.docs_written;
    total.docs_returned += c.docs_returned;
  }
  return total;
}

const verb = (key: string) => key.split(' ')[0];

function cpu(run: RunResult) {
  const out: Record<string, { gross_ms: number; net_ms: number; main_thread_net_ms: number }> = {};
  for (const name of Object.keys(run.crawl.procs)) {
    const c = run.crawl.procs[name];
    const i = run.idle.procs[name];
    const all = perPage(c.cpu_ms, i?.cpu_ms ?? 0, run.crawl, run.idle, run.job.pages);
    const main = perPage(c.main_thread_cpu_ms, i?.main_thread_cpu_ms ?? 0, run.crawl, run.idle, run.job.pages);
    out[name] = { gross_ms: all.gross, net_ms: all.net, main_thread_net_ms: main.net };
  }
  return out;
}

function store(run: RunResult) {
  const crawl = run.crawl.mongo ?? {};
  const idle = run.idle.mongo ?? {};
  const pages = run.job.pages;
  const work = (key: string) => !isBackground(key);
  const of = (counts: WireCounts, keep: (key: string) => boolean) => sumCounts(counts, (k) => work(k) && keep(k));
  const all = [of(crawl, () => true), of(idle, () => true)];
  const writes = [of(crawl, (k) => WRITE.has(verb(k))), of(idle, (k) => WRITE.has(verb(k)))];
  const reads = [of(crawl, (k) => READ.has(verb(k))), of(idle, (k) => READ.has(verb(k)))];
  const pp = (pair: CommandCounts[], field: keyof CommandCounts, digits = 2) =>
    perPage(pair[0][field], pair[1][field], run.crawl, run.idle, pages, digits).net;
  const byCollection: Record<string, { commands: number; request_bytes: number; reply_bytes: number }> = {};
  for (const [key, c] of Object.entries(crawl)) {
    if (!work(key)) continue;
    byCollection[key] = {
      commands: r(c.n / pages, 3),
      request_bytes: Math.round(c.request_bytes / pages),
      reply_bytes: Math.round(c.reply_bytes / pages),
    };
  }
  // What each part of a page's life writes: the archive (docs/archive.md), the crawl's frontier and outcomes,
  // the job's results, events and counters.
  const areaOf = (key: string) => {
    const collection = key.split(' ')[1] ?? '';
    if (collection.startsWith('archive')) return 'archive';
    if (collection.startsWith('crawl_')) return 'crawl_state';
    if (collection.startsWith('job') || collection === 'jobs') return 'job_results_events_counters';
    return 'other';
  };
  const byArea: Record<string, { commands: number; write_commands: number; docs_written: number; write_request_bytes: number }> = {};
  for (const [key, c] of Object.entries(crawl)) {
    if (!work(key)) continue;
    const area = (byArea[areaOf(key)] ??= { commands: 0, write_commands: 0, docs_written: 0, write_request_bytes: 0 });
    area.commands += c.n / pages;
    if (WRITE.has(verb(key))) {
      area.write_commands += c.n / pages;
      area.docs_written += c.docs_written / pages;
      area.write_request_bytes += c.request_bytes / pages;
    }
  }
  for (const area of Object.values(byArea)) {
    area.commands = r(area.commands);
    area.write_commands = r(area.write_commands);
    area.docs_written = r(area.docs_written);
    area.write_request_bytes = Math.round(area.write_request_bytes);
  }
  const background = sumCounts(idle, isBackground);
  const idleWork = sumCounts(idle, work);
  return {
    per_page: {
      commands: pp(all, 'n'),
      write_commands: pp(writes, 'n'),
      read_commands: pp(reads, 'n'),
      docs_written: pp(writes, 'docs_written'),
      docs_returned: pp(reads, 'docs_returned'),
      /** Bytes the apps sent in write commands (the documents and updates themselves, BSON). */
      write_request_bytes: pp(writes, 'request_bytes', 0),
      request_bytes: pp(all, 'request_bytes', 0),
      reply_bytes: pp(all, 'reply_bytes', 0),
    },
    by_area: byArea,
    by_command_and_collection: Object.fromEntries(Object.entries(byCollection).sort((a, b) => b[1].commands - a[1].commands)),
    idle_per_s: {
      driver_housekeeping_commands: r(background.n / run.idle.seconds),
      other_commands: r(idleWork.n / run.idle.seconds),
    },
  };
}

function redis(run: RunResult) {
  const c = run.crawl.redis;
  const i = run.idle.redis;
  if (!c || !i) return undefined;
  const pages = run.job.pages;
  const pp = (a: number, b: number, digits = 2) => perPage(a, b, run.crawl, run.idle, pages, digits).net;
  return {
    per_page: {
      commands: pp(c.total_calls, i.total_calls),
      script_calls: pp(c.script_calls, i.script_calls),
      input_bytes: pp(c.net_input_bytes, i.net_input_bytes, 0),
      output_bytes: pp(c.net_output_bytes, i.net_output_bytes, 0),
      /** Redis's own CPU (INFO used_cpu_user + used_cpu_sys), ms. */
      cpu_ms: pp(c.cpu_s * 1000, i.cpu_s * 1000, 3),
    },
    top_commands_per_page: Object.fromEntries(
      Object.entries(c.calls)
        .slice(0, 15)
        .map(([cmd, n]) => [cmd, r(n / pages, 3)]),
    ),
    idle_per_s: { commands: r(i.total_calls / run.idle.seconds), input_bytes: Math.round(i.net_input_bytes / run.idle.seconds) },
  };
}

function model(run: RunResult) {
  const pages = run.job.pages;
  return {
    calls: r(run.crawl.model.calls / pages, 3),
    prompt_chars: Math.round(run.crawl.model.prompt_chars / pages),
    prompt_tokens_o200k: Math.round(run.crawl.model.prompt_tokens_o200k / pages),
    reported_input_tokens: Math.round(run.job.token_usage_input / pages),
    reported_output_tokens: Math.round(run.job.token_usage_output / pages),
  };
}

/** Reading the results back: per result item, what the API, the store and Redis spent. */
function readBack(run: RunResult) {
  const items = Math.max(1, run.results_read.items);
  const api = run.read.procs.api ?? run.read.procs.app;
  const mongo = run.read.mongo ? sumCounts(run.read.mongo, (k) => !isBackground(k)) : undefined;
  return {
    items: run.results_read.items,
    response_bytes_per_item: Math.round(run.results_read.bytes / items),
    api_cpu_ms_per_item: api ? r(api.cpu_ms / items, 3) : null,
    store_reply_bytes_per_item: mongo ? Math.round(mongo.reply_bytes / items) : null,
  };
}

function cluster(run: RunResult) {
  return {
    crawlers: run.crawlers,
    pages: run.job.pages,
    failed: run.job.failed,
    pages_per_s: run.pages_per_s,
    steady_pages_per_s: run.steady_pages_per_s ?? null,
    crawl_seconds: run.crawl.seconds,
    cpu_per_page: cpu(run),
    store: store(run),
    redis: redis(run),
    model: model(run),
    read_back: readBack(run),
  };
}

/** A cluster run's per-page figures, as the summary's `cluster_*` entries have them (the feature runs' too, features.ts). */
export const clusterSummary = (run: RunResult) => cluster(run);

function embedded(run: RunResult, sqlRun?: RunResult) {
  const pages = run.job.pages;
  const app = { crawl: run.crawl.procs.app, idle: run.idle.procs.app };
  const sql = sqlRun?.crawl.sql;
  const sqlIdle = sqlRun?.idle.sql;
  let statements: Record<string, unknown> | undefined;
  if (sql && sqlRun) {
    const n = Object.values(sql.statements).reduce((a, s) => a + s.n, 0);
    const idleN = Object.values(sqlIdle?.statements ?? {}).reduce((a, s) => a + s.n, 0);
    const bytesIn = Object.values(sql.statements).reduce((a, s) => a + s.bytes_in, 0);
    const bytesOut = Object.values(sql.statements).reduce((a, s) => a + s.bytes_out, 0);
    const p = sqlRun.job.pages;
    statements = {
      statements: perPage(n, idleN, sqlRun.crawl, sqlRun.idle, p).net,
      transactions: r(sql.commits / p),
      bytes_bound: Math.round(bytesIn / p),
      bytes_read: Math.round(bytesOut / p),
      by_statement: Object.fromEntries(
        Object.entries(sql.statements)
          .sort((a, b) => b[1].n - a[1].n)
          .slice(0, 20)
          .map(([k, s]) => [k, r(s.n / p, 3)]),
      ),
      idle_statements_per_s: r(idleN / sqlRun.idle.seconds),
    };
  }
  const dataDir = run.data_dir_bytes ?? {};
  return {
    pages,
    failed: run.job.failed,
    pages_per_s: run.pages_per_s,
    steady_pages_per_s: run.steady_pages_per_s ?? null,
    crawl_seconds: run.crawl.seconds,
    cpu_per_page: cpu(run),
    disk_write_bytes_per_page: perPage(app.crawl.disk_write_bytes, app.idle.disk_write_bytes, run.crawl, run.idle, pages, 0).net,
    data_dir_bytes_per_page: Object.fromEntries(Object.entries(dataDir).map(([k, v]) => [k, Math.round(v / pages)])),
    sqlite: statements,
    model: model(run),
    read_back: readBack(run),
  };
}

function latency(run: RunResult) {
  const w = run.workload;
  const workers = Number(w.env?.GLEANER_PAGE_WORKERS ?? 8);
  const modelMs = Number(/^slow-(\d+)$/.exec(w.model)?.[1] ?? 0);
  const pageS = (w.siteDelayMs + modelMs) / 1000;
  return {
    page_workers: workers,
    page_wait_s: pageS,
    pages: run.job.pages,
    pages_per_s: run.pages_per_s,
    steady_pages_per_s: run.steady_pages_per_s,
    bound_pages_per_s: r(workers / pageS, 1),
    share_of_bound: r((run.steady_pages_per_s ?? run.pages_per_s) / (workers / pageS)),
    crawler_cpu_ms_per_page: cpu(run)['crawler-1']?.net_ms,
  };
}

/**
 * The CPU target (issue 37): crawler CPU per page ≤ 1.5× raw Crawlee's on the same pages (crawlee_peer,
 * crawlee_peer_real), embedded (the one process) and in a cluster (the crawler; the API's share apart).
 */
function cpuVsCrawlee(runs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const pairs: Array<[string, string, string, string]> = [
    ['embedded', 'embedded', 'crawlee_peer', 'app'],
    ['cluster_1', 'cluster_1', 'crawlee_peer', 'crawler-1'],
    ['embedded_real', 'embedded_real', 'crawlee_peer_real', 'app'],
    ['cluster_1_real', 'cluster_1_real', 'crawlee_peer_real', 'crawler-1'],
  ];
  for (const [name, run, peer, proc] of pairs) {
    const g = runs[run];
    const c = runs[peer] as { cpu_ms_per_page?: number; date?: string; load_average_at_start?: number } | undefined;
    if (!ok(g) || typeof c?.cpu_ms_per_page !== 'number') continue;
    const gleaner = cpu(g)[proc]?.gross_ms;
    if (typeof gleaner !== 'number') continue;
    out[name] = {
      gleaner_cpu_ms_per_page: gleaner,
      crawlee_cpu_ms_per_page: c.cpu_ms_per_page,
      ratio: r(gleaner / c.cpu_ms_per_page, 2),
      target_max_ratio: 1.5,
      met: gleaner / c.cpu_ms_per_page <= 1.5,
      measured: { gleaner: (g as { date?: string }).date, crawlee: c.date },
    };
  }
  return out;
}

const ok = (run: unknown): run is RunResult => typeof run === 'object' && run !== null && 'crawl' in run;

export function summarise(runs: Record<string, RunResult>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (ok(runs.embedded)) out.embedded = embedded(runs.embedded, ok(runs.embedded_sql) ? runs.embedded_sql : undefined);
  if (ok(runs.embedded_real)) out.embedded_real = embedded(runs.embedded_real);
  for (const name of ['cluster_1', 'cluster_2', 'cluster_1_large', 'cluster_1_real']) if (ok(runs[name])) out[name] = cluster(runs[name]);
  for (const name of ['latency_8', 'latency_24', 'latency_3s_8', 'latency_3s_24']) if (ok(runs[name])) out[name] = latency(runs[name]);
  const vs = cpuVsCrawlee(runs);
  if (Object.keys(vs).length > 0) out.cpu_vs_crawlee = vs;
  return out;
}
