import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One registry per process. Metric names follow Prometheus conventions: gleaner_ prefix,
 * snake_case, unit suffix, _total for counters, labels instead of names in metric names.
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
  private sampling: Promise<void> | null = null;

  constructor(role: string) {
    this.registry.setDefaultLabels({ role });
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: 'gleaner_http_requests_total',
      help: 'HTTP requests by route template, method and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'gleaner_http_request_duration_seconds',
      help: 'HTTP request latency by route template, method and status code.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
      registers,
    });
    this.jobTransitions = new Counter({
      name: 'gleaner_job_transitions_total',
      help: 'Job status changes performed by this process, by job type and new status.',
      labelNames: ['type', 'status'],
      registers,
    });
    // prom-client calls collect() with the gauge as `this`, so keep a handle on the registry owner.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.jobs = new Gauge({
      name: 'gleaner_jobs',
      help: 'Jobs in the store by type and status (sampled at scrape time).',
      labelNames: ['type', 'status'],
      registers,
      async collect() {
        await self.sample();
      },
    });
    this.queueDepth = new Gauge({
      name: 'gleaner_queue_depth',
      help: 'Messages in each work queue by state (waiting, active, delayed, failed).',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        await self.sample();
      },
    });
    this.sseClients = new Gauge({
      name: 'gleaner_sse_clients',
      help: 'Open job stream (SSE) connections on this process.',
      registers,
    });
    this.authFailures = new Counter({
      name: 'gleaner_auth_failures_total',
      help: 'Rejected API credentials by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'gleaner_rate_limited_requests_total',
      help: 'Requests rejected by the per-key rate limit.',
      registers,
    });
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
