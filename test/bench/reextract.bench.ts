/**
 * npm run bench:reextract — re-extraction from the page archive against the crawl that filled it, in
 * the same run (docs/archive.md "What it costs"), written to bench-results/reextract.json. No timed
 * assertions: the numbers and the evidence are reported.
 *
 * Embedded Gleaner (the built app, one process), the crawl benchmark's local site (2,000 pages of
 * ~4 KB of text on one host, no delay), the local model server answering at once. Rounds of: a crawl
 * with `archive: false` (the anchor) and a crawl with `archive: true` (the default), in alternating
 * order, then a re-extraction of the second with a new schema. Reported: pages/s of each (job started → completed),
 * the re-extraction against both crawls, the requests the site got during re-extractions (must be 0),
 * and the archive's compressed bytes per page (the metric) and on disk (DATA_DIR/archive). The site's
 * pages are generated text; what real pages cost is measured on the corpus (archive-real-pages.ts).
 *
 * Knobs (environment): BENCH_REEXTRACT_PAGES (2000), BENCH_REEXTRACT_CONCURRENCY (16), BENCH_REEXTRACT_ROUNDS (2).
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import {
  ROOT,
  assertBuilt,
  baseEnv,
  call,
  llmConfig,
  metricSum,
  startCrawl,
  startEmbeddedApp,
  waitJob,
  type JobView,
} from './crawl/gleaner';
import { killAll, median, round } from './crawl/procs';
import { startBenchSite, type BenchSite } from './crawl/site';
import { realPageBytes } from './archive-real-pages';

const PAGES = Number(process.env.BENCH_REEXTRACT_PAGES ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_REEXTRACT_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_REEXTRACT_ROUNDS ?? 2);
const OUT = join(ROOT, 'bench-results', 'reextract.json');
const HOST = 'site.test';

interface Timed {
  pages: number;
  failed: number;
  seconds: number;
  pages_per_s: number;
}

function timed(view: JobView): Timed {
  if (view.status !== 'completed') throw new Error(`job ${view.id} ended ${view.status}: ${view.error_message}`);
  const seconds = (Date.parse(view.completed_at!) - Date.parse(view.started_at!)) / 1000;
  return { pages: view.page_count, failed: view.failed_count, seconds: round(seconds, 2), pages_per_s: round(view.page_count / seconds) };
}

function diskBytes(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        bytes += statSync(full).size;
        files++;
      }
    }
  };
  try {
    walk(dir);
  } catch {
    // no archive directory: nothing stored
  }
  return { bytes, files };
}

async function crawl(
  base: string,
  site: BenchSite,
  models: ModelServer,
  archive: boolean,
): Promise<{ id: string; timing: Timed; requests: number }> {
  site.clearLog();
  const id = await startCrawl(base, {
    url: site.url(HOST, '/'),
    options: { max_depth: 10, max_pages: PAGES, concurrency: CONCURRENCY, fetch_mode: 'static', archive },
    llm_config: llmConfig(models.openaiBaseUrl),
  });
  const view = await waitJob(base, id, { everyMs: 100, onPoll: () => models.reset() });
  return { id, timing: timed(view), requests: site.answered.get(HOST)?.length ?? 0 };
}

async function reextract(base: string, site: BenchSite, models: ModelServer, source: string): Promise<{ timing: Timed; requests: number }> {
  site.clearLog();
  const res = await call(base, 'POST', `/api/v1/jobs/${source}/reextract`, {
    schema: { title: 'string', summary: 'string' },
    llm_config: llmConfig(models.openaiBaseUrl),
    concurrency: CONCURRENCY,
  });
  if (res.status !== 202) throw new Error(`POST /reextract answered ${res.status}: ${JSON.stringify(res.body)}`);
  const view = await waitJob(base, res.body.job_id as string, { everyMs: 100, onPoll: () => models.reset() });
  let requests = 0;
  for (const times of site.answered.values()) requests += times.length;
  return { timing: timed(view), requests };
}

async function main(): Promise<void> {
  assertBuilt();
  const realPages = await realPageBytes();
  console.log(JSON.stringify(realPages));
  const site = await startBenchSite();
  site.configure({ size: PAGES, delayMs: 0 });
  const models = await startModelServer();
  const app = await startEmbeddedApp(
    baseEnv(`${HOST}=127.0.0.1`, { GLEANER_HOST_MAX_CONCURRENCY: String(CONCURRENCY), GLEANER_PAGE_WORKERS: String(CONCURRENCY) }),
  );
  const rounds: Array<Record<string, unknown>> = [];
  try {
    for (let i = 1; i <= ROUNDS; i++) {
      // The two crawls swap places every round, so neither always runs first (warm-up, a busier moment).
      const crawlKept = async () => {
        const before = await metricSum(app.url, 'gleaner_archive_written_bytes_total');
        const job = await crawl(app.url, site, models, true);
        return { job, written: (await metricSum(app.url, 'gleaner_archive_written_bytes_total')) - before };
      };
      let plain: Awaited<ReturnType<typeof crawl>>;
      let archived: Awaited<ReturnType<typeof crawlKept>>;
      if (i % 2 === 1) {
        plain = await crawl(app.url, site, models, false);
        archived = await crawlKept();
      } else {
        archived = await crawlKept();
        plain = await crawl(app.url, site, models, false);
      }
      const { job: kept, written } = archived;
      const again = await reextract(app.url, site, models, kept.id);
      const round_ = {
        round: i,
        crawl_archive_off: plain.timing,
        crawl_archive_on: kept.timing,
        reextract: again.timing,
        site_requests_during_reextract: again.requests,
        archive_bytes_written_by_the_crawl: written,
      };
      console.log(JSON.stringify(round_));
      rounds.push(round_);
    }
    const disk = diskBytes(join(app.dataDir, 'archive'));
    const stored = await metricSum(app.url, 'gleaner_archive_stored_bytes');
    const bodies = await metricSum(app.url, 'gleaner_archive_bodies');
    const rate = (key: string) => median(rounds.map((r) => (r[key] as Timed).pages_per_s));
    const reextractRate = rate('reextract');
    const result = {
      benchmark: 'reextract: re-extraction from the page archive vs the crawl that filled it (npm run bench:reextract)',
      date: new Date().toISOString(),
      machine: {
        cpu: cpus()[0]?.model,
        cores: cpus().length,
        memory_gb: round(totalmem() / 1024 ** 3),
        load_average_at_end_1m: round(loadavg()[0], 2),
        node: process.version,
      },
      setup: {
        deployment: 'embedded (SQLite + files under DATA_DIR/archive)',
        pages: PAGES,
        page_text_bytes: 4000,
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        model: 'local model server, instant answers',
      },
      rounds,
      medians: {
        crawl_archive_off_pages_per_s: rate('crawl_archive_off'),
        crawl_archive_on_pages_per_s: rate('crawl_archive_on'),
        reextract_pages_per_s: reextractRate,
        reextract_vs_crawl_archive_on: round(reextractRate / rate('crawl_archive_on'), 2),
        reextract_vs_crawl_archive_off: round(reextractRate / rate('crawl_archive_off'), 2),
        archive_cost_on_crawl: round(rate('crawl_archive_on') / rate('crawl_archive_off'), 2),
      },
      archive: {
        // Every round's crawl fetches the same pages: the bodies are stored once (deduplicated per tenant).
        bodies,
        stored_bytes: stored,
        stored_bytes_per_page: round(stored / Math.max(1, bodies)),
        bytes_on_disk: disk.bytes,
        files_on_disk: disk.files,
        html_bytes_per_page_as_served: round(
          (await (await fetch(`http://127.0.0.1:${site.port}/n/7`).catch(() => null))?.text())?.length ?? NaN,
        ),
      },
      archive_bytes_per_real_page: realPages,
      site_requests_during_reextractions: rounds.reduce((sum, r) => sum + (r.site_requests_during_reextract as number), 0),
    };
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result.medians), JSON.stringify(result.archive));
    console.log(`wrote ${OUT}`);
  } finally {
    await app.close();
    await site.close();
    await models.close();
    killAll();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});
