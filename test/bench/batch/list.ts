/**
 * A batch (POST /batch/extract) vs raw Crawlee on the same URL list: `urls` pages spread over `hosts`
 * loopback hosts (127.0.0.1 … 127.0.0.<hosts>, one site server on each, so both sides reach them
 * without a resolver), equal concurrency, alternating runs (Crawlee, Gleaner, …), medians and pairs.
 * Gleaner: the built app (embedded) as a process, static fetch, an instant local model per page;
 * Crawlee: a CheerioCrawler that parses each page and follows nothing. RSS: VmHWM from /proc.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envNumber, type BenchContext } from '../crawl/context';
import { baseEnv, call, llmConfig, SCHEMA, startEmbeddedApp, waitJob } from '../crawl/gleaner';
import { watchJobStream } from '../crawl/overhead';
import { median, procCpuSeconds, procStatusMb, round, RssSampler, sleep, spawnProc } from '../crawl/procs';

const CHILD = join(__dirname, 'crawlee-list-child.ts');

export interface ListRun {
  engine: 'crawlee' | 'gleaner';
  order: number;
  pages: number;
  failed: number;
  seconds: number;
  pages_per_s: number;
  peak_rss_mb: number;
  cpu_s: number;
}

/** The URL list: host i gets every `hosts`-th URL, so each host is busy over the whole run. */
export function urlList(port: number, urls: number, hosts: number): string[] {
  return Array.from({ length: urls }, (_, i) => {
    const node = Math.floor(i / hosts);
    return `http://127.0.0.${(i % hosts) + 1}:${port}${node === 0 ? '/' : `/n/${node}`}`;
  });
}

async function crawleeRun(order: number, file: string, concurrency: number): Promise<ListRun> {
  const proc = spawnProc(
    'crawlee',
    process.execPath,
    ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', CHILD, file, String(concurrency)],
    {
      env: { PATH: process.env.PATH ?? '', CRAWLEE_LOG_LEVEL: 'WARNING' },
      stdin: true,
      keepLines: 100,
    },
  );
  const rss = new RssSampler(proc.pid, 100);
  try {
    let line: string | undefined;
    while (!(line = proc.lines.find((l) => l.startsWith('{"pages"')))) {
      if (proc.child.exitCode !== null) throw new Error(`the Crawlee child exited (${proc.child.exitCode}):\n${proc.lines.join('\n')}`);
      await sleep(20);
    }
    rss.stop();
    const result = JSON.parse(line) as { pages: number; failed: number; seconds: number };
    return {
      engine: 'crawlee',
      order,
      pages: result.pages,
      failed: result.failed,
      seconds: round(result.seconds, 2),
      pages_per_s: round(result.pages / result.seconds),
      peak_rss_mb: round(procStatusMb(proc.pid, 'VmHWM') ?? rss.hwmMb),
      cpu_s: round(procCpuSeconds(proc.pid) ?? NaN, 2),
    };
  } finally {
    rss.stop();
    proc.child.stdin?.end();
    await proc.stop('SIGTERM', 5000);
  }
}

async function gleanerRun(ctx: BenchContext, order: number, urls: string[], concurrency: number): Promise<ListRun> {
  const app = await startEmbeddedApp(
    baseEnv('*.test=127.0.0.1', { GLEANER_PAGE_WORKERS: String(concurrency), GLEANER_HOST_MAX_CONCURRENCY: String(concurrency) }),
    // BENCH_BATCH_CPU_PROF=DIR: the app runs under --cpu-prof (test/bench/api/cpu-top.ts summarises a profile).
    process.env.BENCH_BATCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_BATCH_CPU_PROF}`] : [],
  );
  const rss = new RssSampler(app.proc.pid, 100);
  try {
    const started = performance.now();
    const res = await call(app.url, 'POST', '/api/v1/batch/extract', {
      urls,
      schema: SCHEMA,
      llm_config: llmConfig(ctx.models.openaiBaseUrl),
      options: { concurrency, fetch_mode: 'static' },
    });
    if (res.status !== 202) throw new Error(`POST /batch/extract answered ${res.status}: ${JSON.stringify(res.body)}`);
    const stream = await watchJobStream(app.url, res.body.job_id as string, started);
    const resets = setInterval(() => ctx.models.reset(), 1000);
    await stream.done.finally(() => clearInterval(resets));
    const seconds = (stream.completeAt! - started) / 1000;
    const view = await waitJob(app.url, res.body.job_id as string, { everyMs: 50 });
    rss.stop();
    if (view.status !== 'completed') throw new Error(`the batch ended ${view.status}: ${view.error_message}`);
    return {
      engine: 'gleaner',
      order,
      pages: view.page_count,
      failed: view.failed_count,
      seconds: round(seconds, 2),
      pages_per_s: round(view.page_count / seconds),
      peak_rss_mb: round(procStatusMb(app.proc.pid, 'VmHWM') ?? rss.hwmMb),
      cpu_s: round(procCpuSeconds(app.proc.pid) ?? NaN, 2),
    };
  } finally {
    rss.stop();
    await app.close();
  }
}

export async function listVsCrawlee(ctx: BenchContext): Promise<Record<string, unknown>> {
  const urlsCount = envNumber('BENCH_BATCH_URLS', 2000);
  const hosts = envNumber('BENCH_BATCH_HOSTS', 50);
  const concurrency = envNumber('BENCH_BATCH_CONCURRENCY', 16);
  const repeats = envNumber('BENCH_BATCH_REPEATS', 3);
  ctx.site.configure({ size: Math.ceil(urlsCount / hosts) + 1, delayMs: 0 });
  const urls = urlList(ctx.site.port, urlsCount, hosts);
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-bench-batch-'));
  const file = join(dir, 'urls.txt');
  writeFileSync(file, `${urls.join('\n')}\n`);
  // Warm the site and the OS before the first measured run.
  await fetch(urls[0]).then((r) => r.text());
  const runs: ListRun[] = [];
  try {
    for (let i = 0; i < repeats * 2; i++) {
      const engine = i % 2 === 0 ? 'crawlee' : 'gleaner';
      ctx.log(`batch ${urlsCount} URLs over ${hosts} hosts, concurrency ${concurrency}: run ${i + 1}/${repeats * 2} (${engine})`);
      const run = engine === 'crawlee' ? await crawleeRun(i + 1, file, concurrency) : await gleanerRun(ctx, i + 1, urls, concurrency);
      if (run.pages !== urlsCount) ctx.notes.push(`batch: ${engine} run ${i + 1} extracted ${run.pages} of ${urlsCount} pages`);
      ctx.log(`  ${run.pages} pages in ${run.seconds} s = ${run.pages_per_s} pages/s, peak RSS ${run.peak_rss_mb} MB`);
      runs.push(run);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const of = (engine: string) => runs.filter((r) => r.engine === engine);
  const summary = (list: ListRun[]) => ({
    pages_per_s: median(list.map((r) => r.pages_per_s)),
    seconds: median(list.map((r) => r.seconds)),
    peak_rss_mb: median(list.map((r) => r.peak_rss_mb)),
  });
  const crawlee = summary(of('crawlee'));
  const gleaner = summary(of('gleaner'));
  const ratio = round(gleaner.pages_per_s / crawlee.pages_per_s, 2);
  return {
    setup: {
      list: `${urlsCount} URLs, host i = 127.0.0.<i> (1-${hosts}), round-robin; ~5 KB static pages of the crawl bench site, each URL once`,
      gleaner: `embedded, built app as a process; POST /batch/extract with options {concurrency: ${concurrency}, fetch_mode: static}, GLEANER_PAGE_WORKERS = GLEANER_HOST_MAX_CONCURRENCY = ${concurrency}; an instant local model (gpt-4o-mini) extracts every page`,
      crawlee: `CheerioCrawler (@crawlee/cheerio), persistStorage false, min/maxConcurrency ${concurrency}, crawler.run(list), each page parsed, nothing enqueued; its own process`,
      timing: 'Crawlee: crawler.run() inside the child. Gleaner: POST /batch/extract to the `complete` event of the job stream (SSE).',
      rss: 'VmHWM of the process from /proc/<pid>/status (a fresh process per run)',
      order: `alternating, Crawlee first; ${repeats} runs each`,
    },
    runs,
    median: { crawlee, gleaner },
    ratio_pages_per_s: ratio,
    ratio_by_pair: of('gleaner').map((g, i) => round(g.pages_per_s / of('crawlee')[i].pages_per_s, 2)),
    target_ratio: 0.9,
    met: ratio >= 0.9,
  };
}
