import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRICS, type Metrics } from '@app/observability';

/**
 * Prometheus series of monitors (docs/monitors.md "Operations"). Counters are kept by the replica that
 * does the work (starts a run, records its changes); the gauges by every scheduler, from the store.
 */
@Injectable()
export class MonitorMetrics {
  readonly runs: Counter<'outcome'>;
  readonly changes: Counter<'kind'>;
  readonly pages: Counter<'how'>;
  readonly modelCallsSaved: Counter;
  readonly due: Gauge;
  readonly running: Gauge;
  readonly maxFailures: Gauge;

  constructor(@Inject(METRICS) metrics: Metrics) {
    const registry = metrics.registry;
    this.runs = counter(
      registry,
      'gleaner_monitor_runs_total',
      'Monitor runs by outcome: started, skipped (the previous run was still going), completed, failed. Unit: runs.',
      ['outcome'],
    );
    this.changes = counter(
      registry,
      'gleaner_monitor_changes_total',
      'Changes found by monitors, by kind (added, changed, removed). Unit: changes.',
      ['kind'],
    );
    this.pages = counter(
      registry,
      'gleaner_monitor_pages_total',
      'Pages of monitor runs by how they were settled: not_modified (304), hash (same text), lastmod (sitemap), extracted, failed, gone (404/410). Unit: pages.',
      ['how'],
    );
    this.modelCallsSaved = counter(
      registry,
      'gleaner_monitor_model_calls_saved_total',
      'Pages of monitor runs known unchanged without a model call (304, text hash, lastmod). Unit: calls.',
      [],
    );
    this.due = gauge(
      registry,
      'gleaner_monitor_due',
      'Monitors due and not yet started, at the last scheduler tick of this replica. Unit: monitors.',
    );
    this.running = gauge(
      registry,
      'gleaner_monitor_running',
      'Monitor runs going, at the last scheduler tick of this replica. Unit: runs.',
    );
    this.maxFailures = gauge(
      registry,
      'gleaner_monitor_max_consecutive_failures',
      'The most failed runs in a row of any monitor, at the last scheduler tick of this replica. Unit: runs.',
    );
    for (const outcome of ['started', 'skipped', 'completed', 'failed']) this.runs.inc({ outcome }, 0);
    for (const kind of ['added', 'changed', 'removed']) this.changes.inc({ kind }, 0);
    for (const how of ['not_modified', 'hash', 'lastmod', 'extracted', 'failed', 'gone']) this.pages.inc({ how }, 0);
  }
}

/** Reuses a series already registered (several Nest apps may share a registry in tests). */
function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

function gauge(registry: Registry, name: string, help: string): Gauge {
  return (registry.getSingleMetric(name) as Gauge | undefined) ?? new Gauge({ name, help, registers: [registry] });
}
