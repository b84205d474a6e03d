import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { METRICS, type Metrics } from '@app/observability';
import { AuthRepository } from './auth.repository';

/**
 * Tenant deletions (docs/operations.md "Users"): the counter is kept by the replica that ran the deletion
 * (what each removed is in its log line); the gauge, read from the store at scrape time, shows deletions
 * that began and did not complete (each replica reads the same store: aggregate it with max).
 */
@Injectable()
export class TenantDeletionMetrics {
  private readonly deletions: Counter<'outcome'>;

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

  completed(): void {
    this.deletions.inc({ outcome: 'completed' });
  }

  failed(): void {
    this.deletions.inc({ outcome: 'failed' });
  }
}
