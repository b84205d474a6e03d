/**
 * Size: one long crawl (embedded) of a generated tree on one host (size.test), BENCH_CRAWL_SIZE_PAGES
 * pages (default 100,000: the frontier), 16 at a time. Measured from outside:
 * - RSS of the app (VmRSS every second, keyed by the job's page count): growth between page 10,000
 *   (or a tenth of the crawl, when the crawl is shorter than 100,000 pages) and the end, and the peak;
 * - paged crawl-map reads (`limit=100` at the start, the middle and the end of the map, and with a
 *   `status` filter), timed during the crawl and after it;
 * - the whole map streamed (no paging parameters): time, bytes, entries, and the app's RSS while it streams.
 */
import { envNumber, type BenchContext } from './context';
import { baseEnv, call, KEY, llmConfig, startCrawl, startEmbeddedApp, waitJob, type Embedded } from './gleaner';
import { median, procStatusMb, round, sleep } from './procs';

const TARGET_GROWTH_PCT = 10;

export interface MapRead {
  at_pages: number;
  query: string;
  ms: number;
  entries: number;
  status: number;
}

/** V8 heap in use (MB), from the app's own /metrics (prom-client's default nodejs_heap_size_used_bytes). */
export async function heapUsedMb(app: Embedded): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const m = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\d+(?:\.\d+)?)/m.exec(text);
  return m ? round(Number(m[1]) / 1024 / 1024) : NaN;
}

export async function timedRead(app: Embedded, id: string, query: string, atPages: number): Promise<MapRead> {
  const started = performance.now();
  const res = await call(app.url, 'GET', `/api/v1/jobs/${id}/crawl-map?${query}`);
  return {
    at_pages: atPages,
    query,
    ms: round(performance.now() - started, 1),
    entries: Array.isArray(res.body?.entries) ? res.body.entries.length : -1,
    status: res.status,
  };
}

/** Paged reads at the start, middle and end of a map of `total` entries (and one with a status filter). */
export async function pagedReads(app: Embedded, id: string, total: number, atPages: number): Promise<MapRead[]> {
  const reads: MapRead[] = [];
  const end = Math.max(0, total - 100);
  for (const query of [
    'limit=100&offset=0',
    `limit=100&offset=${Math.floor(total / 2)}`,
    `limit=100&offset=${end}`,
    `status=completed&limit=100&offset=${Math.floor(total / 4)}`,
  ]) {
    reads.push(await timedRead(app, id, query, atPages));
  }
  return reads;
}

/** The whole map streamed: time, bytes, entries, and the app's peak RSS during it (sampled every 50 ms). */
export async function fullRead(app: Embedded, id: string): Promise<Record<string, number>> {
  const rssBefore = procStatusMb(app.proc.pid, 'VmRSS') ?? NaN;
  let peak = rssBefore;
  const timer = setInterval(() => (peak = Math.max(peak, procStatusMb(app.proc.pid, 'VmRSS') ?? 0)), 50);
  const started = performance.now();
  try {
    const res = await fetch(`${app.url}/api/v1/jobs/${id}/crawl-map`, { headers: { authorization: `Bearer ${KEY}` } });
    let bytes = 0;
    let firstByteMs = NaN;
    let entries = 0;
    const decoder = new TextDecoder();
    // Every entry view carries one "parent_url" key; counting it avoids holding the map here. The
    // carry (one character shorter than the key) catches a key split across two chunks.
    const KEY_TEXT = '"parent_url":';
    let carry = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (bytes === 0) firstByteMs = performance.now() - started;
      bytes += chunk.length;
      const text = carry + decoder.decode(chunk, { stream: true });
      entries += text.split(KEY_TEXT).length - 1;
      carry = text.slice(-(KEY_TEXT.length - 1));
    }
    return {
      http_status: res.status,
      ms: round(performance.now() - started),
      first_byte_ms: round(firstByteMs),
      mb: round(bytes / 1048576, 1),
      entries,
      app_rss_before_mb: round(rssBefore),
      app_rss_peak_during_mb: round(peak),
    };
  } finally {
    clearInterval(timer);
  }
}

export async function size(ctx: BenchContext): Promise<Record<string, unknown>> {
  const pages = envNumber('BENCH_CRAWL_SIZE_PAGES', 100_000);
  const concurrency = 16;
  const reference = pages >= 20_000 ? 10_000 : Math.max(1, Math.floor(pages / 10));
  ctx.site.clearLog();
  ctx.site.configure({ size: pages, delayMs: 0 });
  const app = await startEmbeddedApp(
    baseEnv('*.test=127.0.0.1', {
      GLEANER_PAGE_WORKERS: String(concurrency),
      GLEANER_HOST_MAX_CONCURRENCY: String(concurrency),
    }),
  );
  try {
    const rssAtStart = procStatusMb(app.proc.pid, 'VmRSS') ?? NaN;
    const started = Date.now();
    const id = await startCrawl(app.url, {
      url: ctx.site.url('size.test', '/'),
      options: { max_depth: 10, max_pages: pages, concurrency, fetch_mode: 'static' },
      llm_config: llmConfig(ctx.models.openaiBaseUrl),
    });
    const samples: Array<{ t_s: number; pages: number; rss_mb: number; heap_used_mb: number }> = [];
    const reads: MapRead[] = [];
    let nextRead = Math.min(reference, pages);
    let lastLog = 0;
    let sampledAt = 0;
    const view = await waitJob(app.url, id, {
      everyMs: 250,
      timeoutMs: 7_200_000,
      onPoll: async (v) => {
        ctx.models.reset();
        const now = Date.now();
        if (now - sampledAt >= 1000) {
          sampledAt = now;
          samples.push({
            t_s: round((now - started) / 1000),
            pages: v.page_count,
            rss_mb: round(procStatusMb(app.proc.pid, 'VmRSS') ?? NaN),
            heap_used_mb: await heapUsedMb(app).catch(() => NaN),
          });
        }
        if (v.page_count >= nextRead && v.status === 'running') {
          // Reads during the crawl (each at most once per step): the store is busy with writes meanwhile.
          const total = v.page_count;
          reads.push(...(await pagedReads(app, id, total, total)));
          nextRead += Math.max(reference, Math.floor(pages / 5));
        }
        if (now - lastLog > 30_000) {
          lastLog = now;
          ctx.log(`  size: ${v.page_count} pages, RSS ${samples.at(-1)?.rss_mb} MB`);
        }
      },
    });
    const seconds = (Date.now() - started) / 1000;
    if (view.status !== 'completed') throw new Error(`the crawl ended ${view.status}: ${view.error_message}`);
    await sleep(1000);
    const rssAtEnd = procStatusMb(app.proc.pid, 'VmRSS') ?? NaN;
    samples.push({
      t_s: round((Date.now() - started) / 1000),
      pages: view.page_count,
      rss_mb: round(rssAtEnd),
      heap_used_mb: await heapUsedMb(app).catch(() => NaN),
    });
    const hwm = procStatusMb(app.proc.pid, 'VmHWM') ?? NaN;

    const atRef = samples.find((s) => s.pages >= reference);
    const afterRef = samples.filter((s) => s.pages >= reference);
    const peakAfterRef = Math.max(...afterRef.map((s) => s.rss_mb));
    const growthEnd = atRef ? round(((rssAtEnd - atRef.rss_mb) / atRef.rss_mb) * 100) : NaN;
    const growthPeak = atRef ? round(((peakAfterRef - atRef.rss_mb) / atRef.rss_mb) * 100) : NaN;
    // The issue's own reference point, page 10,000, whenever the crawl goes past it (also in a shorter run).
    const at10k = samples.find((s) => s.pages >= 10_000);
    const growthFrom10k = at10k && view.page_count > 10_000 ? round(((rssAtEnd - at10k.rss_mb) / at10k.rss_mb) * 100) : null;

    // The live heap: the lowest heap-in-use (just after a major GC) over a tenth of the crawl, right after
    // the reference page and at the end. RSS also follows how far V8 lets the heap grow between collections.
    const floor = (from: number, to: number) => {
      const values = samples.filter((s) => s.pages >= from && s.pages <= to && Number.isFinite(s.heap_used_mb)).map((s) => s.heap_used_mb);
      return values.length > 0 ? Math.min(...values) : NaN;
    };
    const tenth = Math.max(1, Math.floor(view.page_count / 10));
    const heapFloorRef = floor(reference, reference + tenth);
    const heapFloorEnd = floor(view.page_count - tenth, view.page_count);

    ctx.log('size: crawl-map reads after the crawl');
    const after: MapRead[] = [];
    for (let i = 0; i < 3; i++) after.push(...(await pagedReads(app, id, view.page_count, view.page_count)));
    const byQuery = new Map<string, number[]>();
    for (const r of after) {
      const key = r.query.replace(/offset=\d+/, (m) => (m === 'offset=0' ? 'offset=0' : 'offset=N'));
      byQuery.set(`${key}`, [...(byQuery.get(key) ?? []), r.ms]);
    }
    const full = await fullRead(app, id);
    // The RSS curve, thinned to ~60 points for the results file.
    const step = Math.max(1, Math.ceil(samples.length / 60));
    const curve = samples.filter((_, i) => i % step === 0 || i === samples.length - 1);
    const pagedMax = Math.max(...after.map((r) => r.ms));
    if (view.page_count !== pages) ctx.notes.push(`size: the crawl completed ${view.page_count} of ${pages} pages`);
    return {
      setup: {
        site: `size.test (→ 127.0.0.1): a generated tree of ${pages} pages (~5 KB, 10 child links + Home each), answering at once`,
        gleaner: `embedded, built app (dist) as a process; GLEANER_PAGE_WORKERS=${concurrency}, GLEANER_HOST_MAX_CONCURRENCY=${concurrency}`,
        crawl_options: `max_pages ${pages}, max_depth 10, concurrency ${concurrency}, fetch_mode static, instant model`,
        pages_requested: pages,
        full_size_pages: 100_000,
        reference_page: reference,
        rss: 'VmRSS of the app process from /proc and the V8 heap in use from its /metrics, every second, keyed by the page count GET /jobs/{id} showed then',
        reads:
          'GET /jobs/{id}/crawl-map?limit=100&offset=… (start, middle, end, and status=completed) during the crawl and 3× after it; then the whole map streamed',
      },
      pages: view.page_count,
      failed: view.failed_count,
      seconds: round(seconds),
      pages_per_s: round(view.page_count / seconds),
      rss_mb: {
        at_start: round(rssAtStart),
        at_reference_page: atRef?.rss_mb ?? null,
        peak_after_reference: round(peakAfterRef),
        at_end: round(rssAtEnd),
        kernel_peak_vmhwm: round(hwm),
      },
      rss_growth_pct: { reference_to_end: growthEnd, reference_to_peak: growthPeak, page_10000_to_end: growthFrom10k },
      live_heap_mb: {
        note: 'lowest V8 heap in use (after a major GC) over a tenth of the crawl: after the reference page, and at the end',
        after_reference: heapFloorRef,
        at_end: heapFloorEnd,
        growth_pct: round(((heapFloorEnd - heapFloorRef) / heapFloorRef) * 100),
      },
      rss_curve: curve,
      crawl_map: {
        reads_during_crawl: reads,
        paged_after_ms_median: Object.fromEntries([...byQuery].map(([k, v]) => [k, median(v)])),
        paged_after_ms_max: pagedMax,
        full_stream: full,
      },
      targets: { rss_growth_pct_max: TARGET_GROWTH_PCT, crawl_map_paged: 'paged reads return 100 entries, not the map' },
      met: {
        rss_growth: growthEnd <= TARGET_GROWTH_PCT,
        crawl_map_paged: after.every((r) => r.status === 200 && r.entries === 100),
        full_size: view.page_count >= 100_000,
      },
    };
  } finally {
    await app.close();
  }
}
