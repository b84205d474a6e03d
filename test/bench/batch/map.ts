/**
 * POST /map of a site whose robots.txt names a sitemap index of 50,000 URLs (10 gzip sitemaps): the
 * time to the answer and the API process's memory (VmRSS before, VmHWM after: a fresh process per
 * run, so the peak is the map's or the start-up's, whichever is higher). The time budget is raised so
 * the whole map is measured; `within_default_budget` says whether it fits the default 20 s.
 */
import { envNumber, type BenchContext } from '../crawl/context';
import { baseEnv, call, startEmbeddedApp } from '../crawl/gleaner';
import { median, procStatusMb, round, RssSampler } from '../crawl/procs';
import { startSitemapSite } from './sitemap-site';

const DEFAULT_BUDGET_MS = 20_000;

export async function mapOfSitemapIndex(ctx: BenchContext): Promise<Record<string, unknown>> {
  const perFile = envNumber('BENCH_MAP_URLS_PER_SITEMAP', 5000);
  const files = envNumber('BENCH_MAP_SITEMAPS', 10);
  const repeats = envNumber('BENCH_MAP_REPEATS', 3);
  const site = await startSitemapSite(files, perFile);
  const runs: Array<Record<string, number | boolean>> = [];
  try {
    for (let i = 0; i < repeats; i++) {
      ctx.log(`map of a ${site.urls}-URL sitemap index: run ${i + 1}/${repeats}`);
      const app = await startEmbeddedApp(baseEnv('*.test=127.0.0.1', { GLEANER_MAP_TIME_BUDGET_MS: '120000' }));
      const rss = new RssSampler(app.proc.pid, 50);
      try {
        const before = procStatusMb(app.proc.pid, 'VmRSS') ?? NaN;
        const hwmBefore = procStatusMb(app.proc.pid, 'VmHWM') ?? NaN;
        const started = performance.now();
        const res = await call(app.url, 'POST', '/api/v1/map', { url: `${site.url}/`, limit: 100_000 });
        const ms = performance.now() - started;
        rss.stop();
        if (res.status !== 200) throw new Error(`POST /map answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
        const body = res.body as { count: number; found: number; complete: boolean; sitemap_files: number };
        const run = {
          ms: Math.round(ms),
          urls: body.count,
          found: body.found,
          complete: body.complete,
          sitemap_files: body.sitemap_files,
          rss_before_mb: round(before),
          peak_rss_mb: round(procStatusMb(app.proc.pid, 'VmHWM') ?? rss.hwmMb),
          peak_rss_sampled_mb: round(rss.peakSampledMb),
          start_up_hwm_mb: round(hwmBefore),
        };
        ctx.log(`  ${run.urls} URLs in ${run.ms} ms, RSS ${run.rss_before_mb} → peak ${run.peak_rss_sampled_mb} MB (sampled)`);
        if (run.urls < site.urls) ctx.notes.push(`map: run ${i + 1} answered ${run.urls} of ${site.urls} URLs`);
        runs.push(run);
      } finally {
        rss.stop();
        await app.close();
      }
    }
  } finally {
    await site.close();
  }
  const ms = median(runs.map((r) => Number(r.ms)));
  return {
    setup: {
      site: `robots.txt Sitemap: line → a sitemap index of ${files} gzip sitemaps × ${perFile} URLs (${site.urls}), home page with 20 links; 127.0.0.1`,
      request: 'POST /api/v1/map {url, limit: 100000}, JSON answer; GLEANER_MAP_TIME_BUDGET_MS=120000 (measure the whole map)',
      app: 'embedded, built app as a process, a fresh one per run',
      rss: 'VmRSS after start-up, VmHWM after the map (the whole process life), and VmRSS sampled every 50 ms during the call',
    },
    runs,
    median: {
      ms,
      urls: median(runs.map((r) => Number(r.urls))),
      rss_before_mb: median(runs.map((r) => Number(r.rss_before_mb))),
      peak_rss_sampled_mb: median(runs.map((r) => Number(r.peak_rss_sampled_mb))),
      rss_growth_mb: round(median(runs.map((r) => Number(r.peak_rss_sampled_mb) - Number(r.rss_before_mb)))),
    },
    within_default_budget: ms < DEFAULT_BUDGET_MS,
  };
}
