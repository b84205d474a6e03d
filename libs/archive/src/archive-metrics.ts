import { Counter, Gauge } from 'prom-client';
import type { Metrics } from '@app/observability';
import type { ArchiveRepository } from './archive.repository';
import type { ArchiveEvents, KeepOutcome } from './archive.types';

const OUTCOMES: KeepOutcome[] = ['stored', 'deduplicated', 'refused_cap', 'disabled'];

/**
 * The archive's size and growth (docs/archive.md "Metrics"): what this process kept and deleted
 * (counters), and the whole archive's size from the per-tenant usage records (gauges sampled at scrape
 * time; every process reads the shared store, so aggregate them with max).
 */
export function archiveMetrics(
  metrics: Metrics,
  repository: ArchiveRepository,
  /** Writes this process's usage changes not written yet (usage-tally.ts), so a scrape sees them. */
  flushUsage: () => Promise<void> = async () => undefined,
): ArchiveEvents {
  const registers = [metrics.registry];
  const pages = metrics.once(
    'gleaner_archive_pages_total',
    () =>
      new Counter({
        name: 'gleaner_archive_pages_total',
        help: 'Fetched pages handed to the archive by this process, by outcome (stored: a new body; deduplicated: the tenant had the body; refused_cap: the tenant is over its size cap; disabled: archiving off for the server). Unit: pages.',
        labelNames: ['outcome'],
        registers,
      }),
  );
  for (const outcome of OUTCOMES) pages.inc({ outcome }, 0);
  const written = metrics.once(
    'gleaner_archive_written_bytes_total',
    () =>
      new Counter({
        name: 'gleaner_archive_written_bytes_total',
        help: 'Compressed body bytes this process added to the archive (the growth). Unit: bytes.',
        registers,
      }),
  );
  const deleted = metrics.once(
    'gleaner_archive_deleted_bytes_total',
    () =>
      new Counter({
        name: 'gleaner_archive_deleted_bytes_total',
        help: 'Compressed body bytes this process removed from the archive (retention, job and tenant deletion). Unit: bytes.',
        registers,
      }),
  );
  // One read of the usage records per scrape, however many gauges ask.
  let sampling: Promise<{ bytes: number; bodies: number }> | null = null;
  const sample = () =>
    (sampling ??= flushUsage()
      .catch(() => undefined)
      .then(() => repository.allUsage())
      .then((all) => ({
        bytes: all.reduce((sum, usage) => sum + Math.max(0, usage.stored_bytes), 0),
        bodies: all.reduce((sum, usage) => sum + Math.max(0, usage.blobs), 0),
      }))
      .finally(() => {
        sampling = null;
      }));
  metrics.once(
    'gleaner_archive_stored_bytes',
    () =>
      new Gauge({
        name: 'gleaner_archive_stored_bytes',
        help: 'Compressed bytes in the archive, all tenants, counted at scrape time from the shared store (aggregate with max, not sum). Unit: bytes.',
        registers,
        async collect() {
          this.set((await sample().catch(() => ({ bytes: 0 }))).bytes);
        },
      }),
  );
  metrics.once(
    'gleaner_archive_bodies',
    () =>
      new Gauge({
        name: 'gleaner_archive_bodies',
        help: 'Distinct stored bodies in the archive (one per body per tenant), counted at scrape time from the shared store (aggregate with max). Unit: bodies.',
        registers,
        async collect() {
          this.set((await sample().catch(() => ({ bodies: 0 }))).bodies);
        },
      }),
  );
  return {
    kept: (outcome) => pages.inc({ outcome }),
    written: (bytes) => written.inc(bytes),
    deleted: (bytes) => deleted.inc(bytes),
  };
}
