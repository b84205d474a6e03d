/**
 * Fetch benchmark: static pages/s at 32 concurrent requests, and dynamic render latency.
 * `npm run bench:fetch`. The address guard is ON with the fixture host allowlisted under the alias
 * bench.test (→ 127.0.0.1), so every fetch pays the real guard path (resolve, classify, pinned connect).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AddressGuard, Fetcher } from '../../libs/fetch/src';
import { pageCount, startFixtureSite } from '../fixtures/site';

const STATIC_FETCHES = Number(process.env.BENCH_STATIC_FETCHES ?? 2000);
const STATIC_CONCURRENCY = Number(process.env.BENCH_STATIC_CONCURRENCY ?? 32);
const DYNAMIC_PAGES = Number(process.env.BENCH_DYNAMIC_PAGES ?? 30);
const DYNAMIC_CONCURRENCY = Number(process.env.BENCH_DYNAMIC_CONCURRENCY ?? 2);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function pool<T>(count: number, concurrency: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await job(i);
    }),
  );
  return results;
}

async function main(): Promise<void> {
  const site = await startFixtureSite();
  const base = `http://bench.test:${site.port}`;
  const guard = new AddressGuard({
    allowHosts: ['bench.test'],
    resolver: async (host) => {
      if (host === 'bench.test') return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    },
  });
  const fetcher = new Fetcher({
    guard,
    dynamic: { pool: { executablePath: process.env.GLEANER_CHROMIUM_PATH ?? '/usr/bin/chromium', maxBrowsers: 1 }, settleMs: 5_000 },
  });
  const pages = pageCount();
  try {
    // Warm-up (module load, sockets).
    await pool(50, 8, (i) => fetcher.fetch(`${base}/page/${(i % pages) + 1}/`, { mode: 'static' }));

    const staticLatencies: number[] = [];
    let staticBytes = 0;
    let staticErrors = 0;
    const t0 = performance.now();
    await pool(STATIC_FETCHES, STATIC_CONCURRENCY, async (i) => {
      const s = performance.now();
      try {
        const res = await fetcher.fetch(`${base}/page/${(i % pages) + 1}/`, { mode: 'static' });
        staticBytes += res.bytes;
      } catch {
        staticErrors++;
      }
      staticLatencies.push(performance.now() - s);
    });
    const staticSeconds = (performance.now() - t0) / 1000;

    const launchStart = performance.now();
    await fetcher.fetch(`${base}/js/page/1/`, { mode: 'dynamic' });
    const firstRenderMs = performance.now() - launchStart;

    const dynamicLatencies: number[] = [];
    let dynamicErrors = 0;
    const d0 = performance.now();
    await pool(DYNAMIC_PAGES, DYNAMIC_CONCURRENCY, async (i) => {
      const s = performance.now();
      try {
        await fetcher.fetch(`${base}/js/page/${(i % pages) + 1}/`, { mode: 'dynamic' });
      } catch {
        dynamicErrors++;
      }
      dynamicLatencies.push(performance.now() - s);
    });
    const dynamicSeconds = (performance.now() - d0) / 1000;

    const result = {
      at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.release()}` },
      guard: 'enabled; fixture host allowlisted as bench.test -> 127.0.0.1 (full resolve + classify + pinned connect per fetch)',
      static: {
        fetches: STATIC_FETCHES,
        concurrency: STATIC_CONCURRENCY,
        errors: staticErrors,
        seconds: +staticSeconds.toFixed(2),
        pagesPerSecond: +(STATIC_FETCHES / staticSeconds).toFixed(1),
        p50Ms: +percentile(staticLatencies, 50).toFixed(1),
        p95Ms: +percentile(staticLatencies, 95).toFixed(1),
        avgBytes: Math.round(staticBytes / Math.max(1, STATIC_FETCHES - staticErrors)),
      },
      dynamic: {
        pages: DYNAMIC_PAGES,
        concurrency: DYNAMIC_CONCURRENCY,
        errors: dynamicErrors,
        firstRenderWithLaunchMs: Math.round(firstRenderMs),
        p50Ms: Math.round(percentile(dynamicLatencies, 50)),
        p95Ms: Math.round(percentile(dynamicLatencies, 95)),
        pagesPerSecond: +(DYNAMIC_PAGES / dynamicSeconds).toFixed(2),
        pool: fetcher.dynamicFetcher?.stats(),
      },
    };
    console.log('\nfetch benchmark');
    console.table({
      [`static x${STATIC_FETCHES} @${STATIC_CONCURRENCY}`]: {
        'pages/s': result.static.pagesPerSecond,
        'p50 ms': result.static.p50Ms,
        'p95 ms': result.static.p95Ms,
        errors: staticErrors,
      },
      [`dynamic x${DYNAMIC_PAGES} @${DYNAMIC_CONCURRENCY}`]: {
        'pages/s': result.dynamic.pagesPerSecond,
        'p50 ms': result.dynamic.p50Ms,
        'p95 ms': result.dynamic.p95Ms,
        errors: dynamicErrors,
      },
    });
    console.log(`first dynamic render including Chromium launch: ${result.dynamic.firstRenderWithLaunchMs} ms`);
    const out = path.resolve(__dirname, '../../bench-results/fetch.json');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    console.log(`wrote ${out}`);
  } finally {
    await fetcher.close();
    await site.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
