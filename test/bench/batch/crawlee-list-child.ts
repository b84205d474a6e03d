/**
 * The raw-Crawlee side of the batch benchmark, its own process (RSS read from outside like Gleaner's):
 * a plain CheerioCrawler over a URL list, in-memory storage, the given concurrency, no link followed.
 * Erasable TypeScript only, so Node 24's type stripping runs it without a loader
 * (`node crawlee-list-child.ts <urls-file> <concurrency>`). Prints one JSON line with its result,
 * then waits for stdin to close (the parent reads VmHWM first).
 */
import { readFileSync } from 'node:fs';
import { CheerioCrawler, Configuration } from '@crawlee/cheerio';

async function main(): Promise<void> {
  const [file, concurrencyArg] = process.argv.slice(2);
  const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const concurrency = Number(concurrencyArg);
  let pages = 0;
  let failed = 0;
  const crawler = new CheerioCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestsPerCrawl: urls.length,
      async requestHandler({ $ }) {
        // Parsed like any Cheerio handler (the title), nothing enqueued: a list, not a crawl.
        if ($('title').text()) pages++;
      },
      failedRequestHandler() {
        failed++;
      },
    },
    new Configuration({ persistStorage: false }),
  );
  const startedAt = Date.now();
  const started = performance.now();
  await crawler.run(urls);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ pages, failed, seconds, started_at: startedAt })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
