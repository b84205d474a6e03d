/**
 * npm run bench:monitor — a monitor's second run against its first, on a 2,000-page shop where 2 % of the
 * pages change between runs (docs/monitors.md "Cheap re-runs"). Written to bench-results/monitor.json.
 * No timed assertions: the targets are reported as met or not, each measured against the first run of
 * the same monitor in the same process (the anchor):
 *   - model calls of the second run ≤ 3 % of the pages;
 *   - bytes the site sent in the second run ≤ 10 % of the first run's (every page gives validators);
 *   - the second run's time ≤ 25 % of the first run's;
 *   - every changed field reported, and no false change.
 *
 * The built embedded deployment runs as its own process (SQLite, store-backed queue) against a local site and a
 * local model server that answers each page with its ground truth, at once. Knobs: BENCH_MONITOR_PAGES (2000),
 * BENCH_MONITOR_CHANGED_PERCENT (2), BENCH_MONITOR_CONCURRENCY (16), BENCH_MONITOR_CPU_PROF (a directory: the
 * app runs under --cpu-prof, and each run's window on the profile's clock is printed).
 *
 * BENCH_MONITOR_MODEL_LATENCY_MS=N: the model server takes N ms per answer (a real provider's latency, where
 * the instant model shows only the engine's own work); the numbers then go to
 * bench-results/monitor-model-latency.json, and monitor.json keeps the instant model's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { pageUrlOf, startModelServer, type Json } from '../fixtures/model-server';
import { startMonitorSite } from '../fixtures/monitor-site';
import { http, waitFor } from '../e2e/helpers';
import { assertBuilt, KEY, startEmbeddedApp } from './crawl/gleaner';
import { procCpuSeconds } from './crawl/procs';

const ROOT = join(__dirname, '..', '..');
const LATENCY_MS = Number(process.env.BENCH_MONITOR_MODEL_LATENCY_MS ?? 0);
const OUT = join(ROOT, 'bench-results', LATENCY_MS > 0 ? 'monitor-model-latency.json' : 'monitor.json');
const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const pages = Number(process.env.BENCH_MONITOR_PAGES ?? 2000);
  const percent = Number(process.env.BENCH_MONITOR_CHANGED_PERCENT ?? 2);
  const concurrency = Number(process.env.BENCH_MONITOR_CONCURRENCY ?? 16);
  assertBuilt();
  const site = await startMonitorSite(pages, { kinds: ['etag', 'last-modified'], indexEtag: true });
  const models = await startModelServer({
    answer: (request) => ((pageUrlOf(request) && site.truth(pageUrlOf(request)!)) || undefined) as Json,
  });
  // BENCH_MONITOR_CPU_PROF=DIR: the app runs under --cpu-prof; each run's window (monotonic µs, the profile's clock) is printed.
  const profDir = process.env.BENCH_MONITOR_CPU_PROF;
  const app = await startEmbeddedApp(
    {
      GLEANER_BOOTSTRAP_KEY: KEY,
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_BROWSER_ENABLED: 'false',
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
      GLEANER_LLM_RETRIES: '0',
      GLEANER_HOST_MAX_CONCURRENCY: String(concurrency),
      GLEANER_PAGE_WORKERS: String(concurrency),
      GLEANER_MONITOR_SCHEDULER: 'false',
      LOG_LEVEL: 'warn',
    },
    profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
  );
  const key = KEY;
  const call = (method: string, path: string, body?: unknown) => http(app.url, method, path, { key, ...(body ? { body } : {}) });
  try {
    const created = await call('POST', '/api/v1/monitors', {
      name: 'bench',
      url: `${site.url}/`,
      schema: { name: 'string', price: 'number', items: [{ sku: 'string', price: 'number' }] },
      options: { max_depth: 1, max_pages: pages + 10, fetch_mode: 'static', concurrency, respect_robots: false },
      // `+slow-N`: the model server's latency fault (test/fixtures/model-server/faults.ts).
      llm_config: {
        provider: 'openai',
        model: LATENCY_MS > 0 ? `gpt-4o-mini+slow-${LATENCY_MS}` : 'gpt-4o-mini',
        api_key: 'sk-bench',
        base_url: models.openaiBaseUrl,
      },
      schedule: { every: '1d' },
      paused: true,
    });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    const id = created.body.id as string;

    const run = async () => {
      site.resetCounts();
      const calls = models.requests.length;
      const cpuBefore = procCpuSeconds(app.proc.pid) ?? 0;
      const started = process.hrtime.bigint();
      const answer = await call('POST', `/api/v1/monitors/${id}/run`);
      if (answer.status !== 202) throw new Error(`run: ${answer.status} ${answer.text}`);
      const runId = answer.body.run.id as string;
      const done = await waitFor(
        async () => {
          const runs = (await call('GET', `/api/v1/monitors/${id}/runs?limit=5`)).body.runs as Array<Record<string, any>>;
          const r = runs.find((x) => x.id === runId);
          return r && ['completed', 'failed'].includes(r.status) ? r : undefined;
        },
        3_600_000,
        100,
      );
      const ended = process.hrtime.bigint();
      const seconds = Number(ended - started) / 1e9;
      if (profDir) console.log(`[bench:monitor] run window µs ${started / 1000n}..${ended / 1000n}`);
      const cpu = (procCpuSeconds(app.proc.pid) ?? 0) - cpuBefore;
      return {
        run: done,
        seconds: round(seconds),
        cpu_seconds: round(cpu, 2),
        bytes: site.bytes.sent,
        model_requests: models.requests.length - calls,
      };
    };

    console.log(`[bench:monitor] first run of ${pages} pages...`);
    const first = await run();
    // 2 % of the products change price.
    const changed = Math.round((pages * percent) / 100);
    const step = Math.floor(pages / changed);
    const expected = new Map<string, { before: number; after: number }>();
    for (let i = 0; i < changed; i++) {
      const product = site.products.get(String(1 + i * step))!;
      const before = Number(product.price);
      site.setPrice(product.id, (before + 1.25).toFixed(2));
      expected.set(`${site.url}/p/${product.id}`, { before, after: before + 1.25 });
    }
    console.log(`[bench:monitor] second run (${changed} pages changed)...`);
    const second = await run();
    const changes = (await call('GET', `/api/v1/monitors/${id}/changes?run_id=${encodeURIComponent(second.run.id)}&limit=100`)).body
      .changes as Array<Record<string, any>>;
    const found = changes.filter((c) => {
      const want = expected.get(c.key.url);
      return (
        c.kind === 'changed' &&
        want &&
        c.fields.length === 1 &&
        c.fields[0].path === 'price' &&
        c.fields[0].before === want.before &&
        c.fields[0].after === want.after
      );
    });
    const falseChanges = changes.length - found.length;
    const ratios = {
      model_calls_per_page: round(second.run.counts.model_calls / pages, 4),
      bytes_vs_first: round(second.bytes / first.bytes, 4),
      time_vs_first: round(second.seconds / first.seconds, 4),
      // The app process's CPU seconds (user + system): on a shared machine, steadier than wall time under load.
      cpu_vs_first: round(second.cpu_seconds / first.cpu_seconds, 4),
    };
    const [load] = loadavg();
    const result = {
      benchmark: 'monitor second run vs first run, 2,000-page shop, 2 % of pages changed (npm run bench:monitor)',
      model_latency_ms: LATENCY_MS,
      date: new Date().toISOString(),
      machine: {
        cpu: cpus()[0]?.model,
        cores: cpus().length,
        memory_gb: round(totalmem() / 1024 ** 3),
        load_1m_at_end: round(load, 2),
        node: process.version,
      },
      pages,
      changed_pages: changed,
      concurrency,
      first: {
        seconds: first.seconds,
        cpu_seconds: first.cpu_seconds,
        bytes: first.bytes,
        model_requests: first.model_requests,
        counts: first.run.counts,
        status: first.run.status,
      },
      second: {
        seconds: second.seconds,
        cpu_seconds: second.cpu_seconds,
        bytes: second.bytes,
        model_requests: second.model_requests,
        counts: second.run.counts,
        status: second.run.status,
      },
      changes: { expected: changed, reported_correctly: found.length, false_changes: falseChanges },
      ratios,
      targets: {
        model_calls_at_most_3_percent: ratios.model_calls_per_page <= 0.03,
        bytes_at_most_10_percent: ratios.bytes_vs_first <= 0.1,
        time_at_most_25_percent: ratios.time_vs_first <= 0.25,
        every_change_no_false_change: found.length === changed && falseChanges === 0,
      },
    };
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify({ ratios, targets: result.targets, changes: result.changes }, null, 2));
  } finally {
    await app.close();
    await site.close();
    await models.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
