/**
 * Scale-out in cluster mode: built API + 1 or 2 built crawler processes on a Redis and the
 * MongoDB-wire test server (fresh for every run), per-process concurrency fixed. The site answers every
 * page after ~100 ms, on 200 hosts (h1.test … h200.test → 127.0.0.1), so what a second process can add
 * is capacity to wait, not CPU (the machine has 2 cores).
 *  (a) 8 crawls of 25 hosts each, started at once: 1 vs 2 crawler processes;
 *  (b) one crawl over the 200 hosts: 1 vs 2 crawler processes (the page worker pool spreads it).
 * Runs alternate 1, 2, 1, 2, …; medians reported. Who owned which crawl comes from the crawlers' "crawl
 * owned" log lines; page tasks per process from gleaner_crawl_page_tasks_total on each /metrics.
 */
import { envNumber, type BenchContext } from './context';
import { baseEnv, llmConfig, metricSum, startBacking, startCluster, startCrawl, waitJob, type JobView } from './gleaner';
import { median, procCpuSeconds, round, sleep } from './procs';

const HOSTS = 200;
const DELAY_MS = 100;

interface ScaleRun {
  scenario: 'a' | 'b';
  crawlers: number;
  order: number;
  crawls: number;
  pages: number;
  failed: number;
  seconds: number;
  pages_per_s: number;
  /** Pages/s between 10 % and 90 % of the pages (ramp-up and tail left out). */
  steady_pages_per_s: number;
  /** Per crawler process: crawls it owned, page tasks it ran (completed), its CPU seconds. */
  processes: Array<{ name: string; crawls_owned: number; page_tasks: number; cpu_s: number }>;
  /** CPU seconds of the other processes during the run (API, Redis, MongoDB-wire, this benchmark with the site and model servers). */
  other_cpu_s: Record<string, number>;
  /** Total CPU seconds / wall seconds: how many of the 2 cores the run kept busy. */
  cores_busy: number;
  /**
   * Per second since the start: page requests the site answered (fetches of pages, robots.txt left out) and
   * pages the job counters showed completed. Where a ramp-up or a tail spends its time.
   */
  timeline: { answered_per_s: number[]; completed_per_s: number[] };
}

/** Counts of `times` (ms since epoch) per second since `from`, over `seconds` seconds. */
function perSecond(times: number[], from: number, seconds: number): number[] {
  const counts = new Array<number>(Math.ceil(seconds)).fill(0);
  for (const t of times) {
    const i = Math.floor((t - from) / 1000);
    if (i >= 0 && i < counts.length) counts[i]++;
  }
  return counts;
}

/** Progress samples (time, pages so far) as pages completed per second since `from`. */
function progressPerSecond(samples: Array<{ t: number; pages: number }>, from: number, seconds: number): number[] {
  const counts = new Array<number>(Math.ceil(seconds)).fill(0);
  let last = 0;
  for (const s of samples) {
    const i = Math.min(counts.length - 1, Math.max(0, Math.floor((s.t - from) / 1000)));
    if (s.pages > last) {
      counts[i] += s.pages - last;
      last = s.pages;
    }
  }
  return counts;
}

async function clusterRun(
  ctx: BenchContext,
  scenario: 'a' | 'b',
  crawlers: number,
  order: number,
  opts: { workers: number; crawlConcurrency: number; pagesPerHost: number },
): Promise<ScaleRun> {
  const backing = await startBacking();
  try {
    const env = baseEnv('*.test=127.0.0.1', {
      GLEANER_PAGE_WORKERS: String(opts.workers),
      GLEANER_CRAWL_CONCURRENCY: '8',
      GLEANER_HOST_MAX_CONCURRENCY: '64',
      GLEANER_MAX_RUNNING_CRAWLS_PER_USER: '100',
      GLEANER_MAX_RUNNING_JOBS_PER_USER: '100',
    });
    const cluster = await startCluster(backing, crawlers, env);
    try {
      const pids: Record<string, number> = {
        api: cluster.api.proc.pid,
        redis: backing.redis.pid,
        mongo_wire: backing.mongo.pid,
        ...Object.fromEntries(cluster.crawlers.map((c) => [c.proc.name, c.proc.pid])),
      };
      const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, procCpuSeconds(pid) ?? 0]));
      const bench0 = process.cpuUsage();
      ctx.site.clearLog();
      const seeds =
        scenario === 'a'
          ? Array.from({ length: 8 }, (_, i) => ctx.site.url('hub.test', `/?from=${i * 25 + 1}&to=${i * 25 + 25}`))
          : [ctx.site.url('hub.test', `/?from=1&to=${HOSTS}`)];
      const started = Date.now();
      const ids = await Promise.all(
        seeds.map((url) =>
          startCrawl(cluster.api.url, {
            url,
            options: {
              same_domain_only: false,
              max_depth: 10,
              max_pages: 100_000,
              concurrency: opts.crawlConcurrency,
              fetch_mode: 'static',
            },
            llm_config: llmConfig(ctx.models.openaiBaseUrl),
          }),
        ),
      );
      // Progress: total pages over time, for the steady rate.
      const progress: Array<{ t: number; pages: number }> = [];
      const latest = new Map<string, number>();
      const views: JobView[] = await Promise.all(
        ids.map((id) =>
          waitJob(cluster.api.url, id, {
            everyMs: 250,
            timeoutMs: 1_800_000,
            onPoll: (v) => {
              latest.set(id, v.page_count);
              progress.push({ t: Date.now(), pages: [...latest.values()].reduce((a, b) => a + b, 0) });
              ctx.models.reset();
            },
          }),
        ),
      );
      const seconds = (Date.now() - started) / 1000;
      const bench = process.cpuUsage(bench0);
      const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, round((procCpuSeconds(pid) ?? 0) - cpu0[k], 2)]));
      const bad = views.filter((v) => v.status !== 'completed');
      if (bad.length > 0) throw new Error(`crawls ended ${bad.map((v) => `${v.status} (${v.error_message})`).join(', ')}`);
      const pages = views.reduce((a, v) => a + v.page_count, 0);
      await sleep(300); // the last log lines
      const processes = [];
      for (const c of cluster.crawlers) {
        const owned = new Set<string>();
        for (const line of c.proc.watched) {
          if (!line.includes('crawl owned')) continue;
          try {
            const jobId = (JSON.parse(line) as { job_id?: string }).job_id;
            if (jobId && ids.includes(jobId)) owned.add(jobId);
          } catch {
            // not a JSON log line
          }
        }
        processes.push({
          name: c.proc.name,
          crawls_owned: owned.size,
          page_tasks: await metricSum(c.url, 'gleaner_crawl_page_tasks_total', /outcome="completed"/),
          cpu_s: cpu[c.proc.name],
        });
      }
      const total = pages;
      const at = (fraction: number) => progress.find((p) => p.pages >= total * fraction);
      const p10 = at(0.1);
      const p90 = at(0.9);
      const steady = p10 && p90 && p90.t > p10.t ? (p90.pages - p10.pages) / ((p90.t - p10.t) / 1000) : NaN;
      const benchCpu = round((bench.user + bench.system) / 1e6, 2);
      const allCpu = Object.values(cpu).reduce((a, b) => a + b, 0) + benchCpu;
      return {
        scenario,
        crawlers,
        order,
        crawls: ids.length,
        pages,
        failed: views.reduce((a, v) => a + v.failed_count, 0),
        seconds: round(seconds, 2),
        pages_per_s: round(pages / seconds),
        steady_pages_per_s: round(steady),
        processes,
        other_cpu_s: { api: cpu.api, redis: cpu.redis, mongo_wire: cpu.mongo_wire, bench_site_and_model: benchCpu },
        cores_busy: round(allCpu / seconds, 2),
        timeline: {
          answered_per_s: perSecond([...ctx.site.answered.values()].flat(), started, seconds),
          completed_per_s: progressPerSecond(progress, started, seconds),
        },
      };
    } finally {
      await cluster.close();
    }
  } finally {
    await backing.close();
  }
}

export async function scaleOut(ctx: BenchContext): Promise<Record<string, unknown>> {
  const repeats = envNumber('BENCH_CRAWL_REPEATS', 3);
  const pagesPerHost = envNumber('BENCH_CRAWL_SCALE_PAGES_PER_HOST', 10);
  const workers = envNumber('BENCH_CRAWL_SCALE_WORKERS', 8);
  ctx.site.clearLog();
  ctx.site.configure({ size: pagesPerHost, delayMs: DELAY_MS });
  const out: Record<string, unknown> = {
    setup: {
      site: `${HOSTS} hosts h1.test … h${HOSTS}.test (→ 127.0.0.1), ${pagesPerHost} pages each, every answer delayed ${DELAY_MS} ms; hub.test seeds link to the hosts`,
      cluster:
        'built API (--role=api) + N built crawler processes, Redis (redis-server) and the MongoDB-wire test server, all fresh for every run',
      per_process: {
        GLEANER_PAGE_WORKERS: workers,
        GLEANER_CRAWL_CONCURRENCY: 8,
        GLEANER_HOST_MAX_CONCURRENCY: 64,
        GLEANER_MAX_RUNNING_CRAWLS_PER_USER: 100,
      },
      crawl_options: 'same_domain_only false, max_depth 10, fetch_mode static, instant model gpt-4o-mini',
      a: '8 crawls of 25 hosts each (concurrency 8 each), started at once',
      b: '1 crawl over 200 hosts (concurrency 32)',
      order: '1, 2, 1, 2, … crawler processes; medians',
    },
  };
  const only = process.env.BENCH_CRAWL_SCALE_ONLY;
  if (only !== undefined && only !== 'a' && only !== 'b') throw new Error(`BENCH_CRAWL_SCALE_ONLY must be a or b, not ${only}`);
  const scenarios: Array<'a' | 'b'> = only === 'a' || only === 'b' ? [only] : ['a', 'b'];
  for (const scenario of scenarios) {
    const runs: ScaleRun[] = [];
    for (let i = 0; i < repeats * 2; i++) {
      const crawlers = i % 2 === 0 ? 1 : 2;
      ctx.log(`scale-out (${scenario}): run ${i + 1}/${repeats * 2} with ${crawlers} crawler process${crawlers > 1 ? 'es' : ''}`);
      const run = await clusterRun(ctx, scenario, crawlers, i + 1, {
        workers,
        crawlConcurrency: scenario === 'a' ? 8 : 32,
        pagesPerHost,
      });
      ctx.log(
        `  ${run.pages} pages in ${run.seconds} s = ${run.pages_per_s} pages/s (steady ${run.steady_pages_per_s}); ` +
          run.processes.map((p) => `${p.name}: ${p.crawls_owned} crawls, ${p.page_tasks} page tasks`).join('; ') +
          `; cores busy ${run.cores_busy}`,
      );
      runs.push(run);
    }
    const of = (n: number) => runs.filter((r) => r.crawlers === n);
    const one = {
      pages_per_s: median(of(1).map((r) => r.pages_per_s)),
      steady_pages_per_s: median(of(1).map((r) => r.steady_pages_per_s)),
    };
    const two = {
      pages_per_s: median(of(2).map((r) => r.pages_per_s)),
      steady_pages_per_s: median(of(2).map((r) => r.steady_pages_per_s)),
    };
    const ratio = round(two.pages_per_s / one.pages_per_s, 2);
    out[scenario] = {
      runs,
      median: { one_crawler: one, two_crawlers: two },
      ratio,
      ratio_steady: round(two.steady_pages_per_s / one.steady_pages_per_s, 2),
      target_ratio_min: 1.7,
      met: ratio >= 1.7,
    };
  }
  return out;
}
