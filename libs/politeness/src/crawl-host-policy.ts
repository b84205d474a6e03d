import type { AppConfig } from '@app/config';
import type { HostRequestPolicy } from './politeness.port';

/**
 * The politeness slot a crawl's request to a host asks for (docs/crawl.md "Politeness"): spaced by the
 * crawl's `delay_ms` or the system floor, whichever is longer (the port adds robots.txt Crawl-delay), at
 * most GLEANER_HOST_MAX_CONCURRENCY in flight, under a short renewed lease. Pages (page workers) and the
 * owner's own requests (sitemaps) and an extract's `paginate` pages (docs/long-lists.md "Pagination") ask for the same.
 */
export function crawlHostPolicy(
  delayMs: number,
  config: Pick<AppConfig, 'hostMinIntervalMs' | 'hostMaxConcurrency' | 'hostSlotLeaseMs'>,
): HostRequestPolicy {
  return {
    intervalMs: Math.max(delayMs, config.hostMinIntervalMs),
    maxInFlight: config.hostMaxConcurrency,
    leaseMs: config.hostSlotLeaseMs,
  };
}
