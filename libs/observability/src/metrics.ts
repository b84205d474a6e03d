import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { BoundedLabel } from './bounded-label';

/** The reasons AuthService refuses a credential (gleaner_auth_failures_total{reason}). */
export const AUTH_FAILURE_REASONS = ['missing', 'malformed', 'unknown', 'revoked', 'expired'] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/**
 * One registry per process. Metric names follow Prometheus conventions: gleaner_ prefix,
 * snake_case, unit suffix, _total for counters, labels instead of names in metric names. Every HELP
 * text says what is counted and ends with its unit ("Unit: seconds."); every label takes values from
 * a closed set or is capped with BoundedLabel (docs/operations.md, "Metrics"). Counters whose label
 * values are known in advance start at 0, so the first event shows in rate() and increase().
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly jobTransitions: Counter<'type' | 'status'>;
  readonly jobs: Gauge<'type' | 'status'>;
  readonly queueDepth: Gauge<'queue' | 'state'>;
  readonly sseClients: Gauge;
  readonly authFailures: Counter<'reason'>;
  readonly rateLimited: Counter;

  private collectors: Array<() => Promise<void>> = [];
  private readonly boundedLabels = new Map<string, BoundedLabel>();
  private sampling: Promise<void> | null = null;

  constructor(role: string) {
    this.registry.setDefaultLabels({ role });
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: 'gleaner_http_requests_total',
      help: 'HTTP requests answered, by method, route template (`unmatched` for paths no route serves) and status code. Unit: requests.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'gleaner_http_request_duration_seconds',
      help: 'Time from an HTTP request arriving to its response being sent, by method, route template and status code. Unit: seconds.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
      registers,
    });
    this.jobTransitions = new Counter({
      name: 'gleaner_job_transitions_total',
      help: 'Job status changes made by this process, by job type and new status. Unit: transitions.',
      labelNames: ['type', 'status'],
      registers,
    });
    // prom-client calls collect() with the gauge as `this`, so keep a handle on the registry owner.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.jobs = new Gauge({
      name: 'gleaner_jobs',
      help: 'Jobs in the store by type and status, counted at scrape time; every process counts the shared store (aggregate with max, not sum). Unit: jobs.',
      labelNames: ['type', 'status'],
      registers,
      async collect() {
        await self.sample();
      },
    });
    this.queueDepth = new Gauge({
      name: 'gleaner_queue_depth',
      help: 'Messages in each work queue by state (waiting, active, delayed, failed), counted at scrape time; every process counts the shared queues (aggregate with max). Unit: messages.',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        await self.sample();
      },
    });
    this.sseClients = new Gauge({
      name: 'gleaner_sse_clients',
      help: 'Job event streams (SSE) open on this process. Unit: connections.',
      registers,
    });
    this.authFailures = new Counter({
      name: 'gleaner_auth_failures_total',
      help: 'API requests refused for their credentials, by reason (missing, malformed, unknown, revoked, expired). Unit: requests.',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of AUTH_FAILURE_REASONS) this.authFailures.inc({ reason }, 0);
    this.rateLimited = new Counter({
      name: 'gleaner_rate_limited_requests_total',
      help: 'API requests refused with 429 by the per-key rate limit. Unit: requests.',
      registers,
    });
  }

  /** The process's one BoundedLabel for `key` (providers instantiated twice share it, and its cap). */
  boundedLabel(key: string, limit: number): BoundedLabel {
    let label = this.boundedLabels.get(key);
    if (!label) this.boundedLabels.set(key, (label = new BoundedLabel(limit)));
    return label;
  }

  /** Registers a scrape-time sampler (job counts, queue depth). Failures never break a scrape. */
  addCollector(collector: () => Promise<void>): void {
    this.collectors.push(collector);
  }

  /** Runs the samplers once per scrape, however many gauges ask for them. */
  private sample(): Promise<void> {
    this.sampling ??= Promise.all(this.collectors.map((c) => c().catch(() => undefined))).then(() => {
      this.sampling = null;
    });
    return this.sampling;
  }

  /** The registered metric of that name, or a new one: providers instantiated twice share one series. */
  once<T>(name: string, create: () => T): T {
    return (this.registry.getSingleMetric(name) as T | undefined) ?? create();
  }

  async render(): Promise<string> {
    return this.registry.metrics();
  }
}

export const METRICS = Symbol('METRICS');
export const LOGGER = Symbol('LOGGER');
