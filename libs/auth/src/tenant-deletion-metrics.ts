import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { METRICS, type Metrics } from '@app/observability';
import { AuthRepository } from './auth.repository';

/**
 * Tenant deletions (docs/operations.md "Users"): the counters are kept by the replica that ran the
 * deletion; the gauge, read from the store at scrape time, shows deletions that began and did not
 * complete (each replica reads the same store: aggregate it with max).
 */
@Injectable()
export class TenantDeletionMetrics {
  private readonly deletions: Counter<'outcome'>;
  private readonly records: Counter<'kind'>;
  private readonly duration: Histogram;

  constructor(@Inject(METRICS) metrics: Metrics, repository: AuthRepository) {
    const registers = [metrics.registry];
    this.deletions = metrics.once(
      'gleaner_tenant_deletions_total',
      () =>
        new Counter({
          name: 'gleaner_tenant_deletions_total',
          help: 'Tenant deletions run by this process, by outcome (completed: nothing of the tenant is left; failed: stopped half way, resumed by a repeated DELETE, the periodic resume or a restart). Unit: deletions.',
          labelNames: ['outcome'],
          registers,
        }),
    );
    for (const outcome of ['completed', 'failed']) this.deletions.inc({ outcome }, 0);
    this.records = metrics.once(
      'gleaner_tenant_deletion_records_total',
      () =>
        new Counter({
          name: 'gleaner_tenant_deletion_records_total',
          help: 'Records deleted (or, for monitors and jobs, stopped) by completed tenant deletions of this process, by what they were. Unit: records.',
          labelNames: ['kind'],
          registers,
        }),
    );
    this.duration = metrics.once(
      'gleaner_tenant_deletion_duration_seconds',
      () =>
        new Histogram({
          name: 'gleaner_tenant_deletion_duration_seconds',
          help: 'Time a completed tenant deletion took in this process, from the mark to the last record. Unit: seconds.',
          buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 1800],
          registers,
        }),
    );
    metrics.once(
      'gleaner_tenant_deletions_pending',
      () =>
        new Gauge({
          name: 'gleaner_tenant_deletions_pending',
          help: 'Users whose deletion began and has not completed (their keys are refused already), counted at scrape time. Unit: users.',
          registers,
          async collect() {
            // A store that does not answer leaves the last value: a scrape never fails for it.
            const count = await repository.countUsersBeingDeleted().catch(() => null);
            if (count !== null) this.set(count);
          },
        }),
    );
  }

  completed(erased: Record<string, number>, seconds: number): void {
    this.deletions.inc({ outcome: 'completed' });
    for (const [kind, count] of Object.entries(erased)) this.records.inc({ kind }, count);
    this.duration.observe(seconds);
  }

  failed(): void {
    this.deletions.inc({ outcome: 'failed' });
  }
}
