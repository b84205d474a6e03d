/**
 * The raw-Crawlee side of the overhead benchmark, run as its own process (so its RSS is measured from
 * outside like Gleaner's): a plain CheerioCrawler, in-memory storage, the given concurrency, every
 * same-hostname link enqueued. Written with erasable TypeScript only, so it runs on Node 24's type
 * stripping without a loader in the process (`node crawlee-child.ts <seed> <concurrency> <maxPages>`).
 * Prints one JSON line with its result, then waits for stdin to close (the parent reads VmHWM first).
 */
import { CheerioCrawler, Configuration } from '@crawlee/cheerio';

async function main(): Promise<void> {
  const [seed, concurrencyArg, maxPagesArg] = process.argv.slice(2);
  const concurrency = Number(concurrencyArg);
  let pages = 0;
  let failed = 0;
  const crawler = new CheerioCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestsPerCrawl: Number(maxPagesArg),
      async requestHandler({ enqueueLinks }) {
        pages++;
        await enqueueLinks({ strategy: 'same-hostname' });
      },
      failedRequestHandler() {
        failed++;
      },
    },
    new Configuration({ persistStorage: false }),
  );
  const startedAt = Date.now();
  const started = performance.now();
  await crawler.run([seed]);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ pages, failed, seconds, started_at: startedAt })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
