import type { ApiClient } from '../api/api-client';
import type { CompleteEventData, CrawlMap, JobView, ResultEventData, StatusEventData } from '../api/api-types';
import { followJobEvents, type ConnectionState, type JobEvent } from '../api/job-event-stream';
import { ApiError, CliError } from '../errors';
import type { Colors } from '../util/colors';
import type { InterruptPrompt } from './interrupt-prompt';
import type { ProgressDisplay, ProgressState } from './progress';
import type { ResultSink } from './result-sink';
import type { SignalHub } from './signals';
import { jobNoun, onCrawlEngine } from './job-kinds';

export interface FollowOptions {
  client: ApiClient;
  job: Pick<JobView, 'id' | 'type' | 'status'> & Partial<JobView>;
  /** The crawl's max_pages when known (it bounds the ETA). */
  maxPages?: number;
  sink: ResultSink | null;
  display: ProgressDisplay;
  /** Null: Ctrl-C detaches without asking. */
  prompt: InterruptPrompt | null;
  signals: SignalHub;
  colors: Colors;
  reconnectTimeoutMs: number;
  /** Crawl map polling period (rate limits, skipped URLs); "a few seconds". */
  mapPollMs?: number;
  /** The command's own Ctrl-C/abort signal. */
  signal: AbortSignal;
  /** --json: warnings are JSON lines (`{"warning": {url, error_category, error_message}}`). */
  json?: boolean;
}

export type FollowOutcome = { kind: 'complete'; complete: CompleteEventData; cancelledByUser: boolean } | { kind: 'detached' };

/** Counts seen while following, for the summary (the job and crawl map have the authoritative ones). */
export interface FollowTotals {
  tokensIn: number;
  tokensOut: number;
  resultsSeen: number;
  startedAt: number;
  crawlMap: CrawlMap | null;
}

class Detach extends Error {}

/** URLs not crawled: by reason (which counts those beyond the listed-entry cap), or the skipped entries, whichever is more. */
export function skippedCount(map: CrawlMap): number {
  const byReason = Object.values(map.skipped_by_reason ?? {}).reduce((a, b) => a + b, 0);
  return Math.max(byReason, map.skipped ?? 0);
}

/** Keeps the last `windowMs` of (time, pages) samples: pages per second over that window. */
class RateMeter {
  private readonly samples: Array<[number, number]> = [];
  constructor(private readonly windowMs = 15_000) {}

  add(now: number, count: number): void {
    const last = this.samples.at(-1);
    if (last && last[1] === count && now - last[0] < 1000) return;
    this.samples.push([now, count]);
    while (this.samples.length > 2 && now - this.samples[1][0] > this.windowMs) this.samples.shift();
  }

  /** Null until two seconds of history exist. */
  rate(now: number): number | null {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last) return null;
    const span = now - first[0];
    if (span < 2000) return null;
    return (last[1] - first[1]) / (span / 1000);
  }
}

/**
 * Follows one job to its end: SSE events (resumed across dropped connections), result lines to the
 * sink, the progress display, the crawl map polled for rate limits, and Ctrl-C (cancel / detach /
 * keep watching).
 */
export class JobFollower {
  private readonly state: ProgressState;
  private readonly meter = new RateMeter();
  readonly totals: FollowTotals;
  private complete: CompleteEventData | null = null;
  private cancelledByUser = false;
  private prompting = false;
  private readonly stopController = new AbortController();
  private mapTimer: NodeJS.Timeout | undefined;
  private mapInFlight = false;
  private reconnectNoted = false;
  private doneSeen = 0;
  private failedSeen = 0;

  constructor(private readonly options: FollowOptions) {
    const job = options.job;
    this.state = {
      jobId: job.id,
      jobType: job.type,
      status: job.status,
      done: job.page_count ?? 0,
      failed: job.failed_count ?? 0,
      discovered: job.urls_queued ?? 0,
      skipped: 0,
      tokensIn: 0,
      tokensOut: 0,
      costUsd: job.cost_usd ?? 0,
      pagesPerSecond: null,
      etaSeconds: null,
      elapsedMs: 0,
      rateLimited: false,
      reconnecting: null,
      cancelling: false,
    };
    this.totals = { tokensIn: 0, tokensOut: 0, resultsSeen: 0, startedAt: Date.now(), crawlMap: null };
  }

  async run(): Promise<FollowOutcome> {
    const { display } = this.options;
    const popSignal = this.options.signals.push(() => void this.onInterrupt());
    const signal = AbortSignal.any([this.options.signal, this.stopController.signal]);
    display.start();
    this.refresh();
    if (onCrawlEngine(this.options.job.type)) this.scheduleMapPoll(0);
    try {
      await followJobEvents(this.options.client, {
        jobId: this.options.job.id,
        signal,
        reconnectTimeoutMs: this.options.reconnectTimeoutMs,
        // The service sends a heartbeat every 15 s by default: four missed ones mean a dead connection.
        idleTimeoutMs: 60_000,
        onEvent: (event) => this.onEvent(event),
        onConnection: (state) => this.onConnection(state),
      });
      // The last frame shows the crawl's final skipped count, as the summary after it does: a crawl that ended
      // before a poll (or between two) would otherwise show fewer URLs discovered than the summary adds up to.
      if (onCrawlEngine(this.options.job.type)) await this.readMap();
      return { kind: 'complete', complete: this.complete!, cancelledByUser: this.cancelledByUser };
    } catch (error) {
      if (this.stopController.signal.reason instanceof Detach) return { kind: 'detached' };
      throw error;
    } finally {
      clearTimeout(this.mapTimer);
      this.mapTimer = undefined;
      popSignal();
      this.options.prompt?.close();
      display.stop();
    }
  }

  /** The job's counters as the stream last told them. */
  snapshot(): Pick<
    JobView,
    'status' | 'page_count' | 'failed_count' | 'urls_queued' | 'cost_usd' | 'token_usage_input' | 'token_usage_output'
  > {
    const s = this.state;
    return {
      status: s.status as JobView['status'],
      page_count: s.done,
      failed_count: s.failed,
      urls_queued: s.discovered,
      cost_usd: s.costUsd,
      token_usage_input: s.tokensIn,
      token_usage_output: s.tokensOut,
    };
  }

  /** The last crawl map summary (polled while following), fetched once more at the end by the caller if needed. */
  get crawlMap(): CrawlMap | null {
    return this.totals.crawlMap;
  }

  private onEvent(event: JobEvent): boolean {
    switch (event.event) {
      case 'status': {
        const data = event.data as StatusEventData;
        this.state.status = data.status;
        // Result events can be ahead of the counters: never move back.
        this.state.done = Math.max(this.state.done, data.page_count ?? 0);
        this.state.failed = Math.max(this.state.failed, data.failed_count ?? 0);
        // The service recounts this at the end (URLs it admitted, then skipped for max_pages, drop out).
        this.state.discovered = data.urls_queued ?? this.state.discovered;
        this.state.costUsd = Math.max(this.state.costUsd, data.cost_usd ?? 0);
        break;
      }
      case 'result': {
        const data = event.data as ResultEventData;
        const isNew = this.options.sink ? this.options.sink.write(data) : true;
        if (isNew) {
          // Counted here too: a result event usually comes before the status event that counts it.
          if (data.status === 'failed') this.failedSeen++;
          else this.doneSeen++;
          this.state.done = Math.max(this.state.done, this.doneSeen);
          this.state.failed = Math.max(this.state.failed, this.failedSeen);
          this.totals.resultsSeen++;
          this.totals.tokensIn += data.token_usage_input ?? 0;
          this.totals.tokensOut += data.token_usage_output ?? 0;
          this.state.tokensIn = this.totals.tokensIn;
          this.state.tokensOut = this.totals.tokensOut;
        }
        break;
      }
      case 'error': {
        this.options.display.note(pageWarning(event.data, this.options.json === true, this.options.colors));
        break;
      }
      case 'complete': {
        const data = event.data as CompleteEventData;
        this.complete = data;
        this.state.status = data.status;
        this.state.done = Math.max(this.state.done, data.page_count ?? 0);
        this.state.costUsd = data.cost_usd ?? this.state.costUsd;
        this.refresh();
        return true;
      }
    }
    this.refresh();
    return false;
  }

  private onConnection(connection: ConnectionState): void {
    if (connection.state === 'reconnecting') {
      this.state.reconnecting = `reconnecting (${connection.reason})`;
      if (!this.reconnectNoted) {
        this.reconnectNoted = true;
        this.options.display.note(this.options.colors.yellow(`connection to the job stream lost (${connection.reason}); reconnecting…`));
      }
    } else if (this.state.reconnecting) {
      this.state.reconnecting = null;
      this.reconnectNoted = false;
      this.options.display.note(this.options.colors.green(`reconnected; resuming after event ${connection.resumedFrom}`));
    }
    this.refresh();
  }

  private refresh(): void {
    const now = Date.now();
    const state = this.state;
    this.meter.add(now, state.done + state.failed);
    state.elapsedMs = now - this.totals.startedAt;
    state.pagesPerSecond = state.status === 'running' ? this.meter.rate(now) : null;
    state.etaSeconds = null;
    const maxPages = this.options.maxPages;
    if (maxPages !== undefined && state.status === 'running' && state.pagesPerSecond) {
      const target = state.discovered > 0 ? Math.min(maxPages, state.discovered) : maxPages;
      const remaining = target - state.done - state.failed;
      if (remaining > 0) state.etaSeconds = remaining / state.pagesPerSecond;
    }
    this.options.display.update({ ...state });
  }

  private scheduleMapPoll(delayMs: number): void {
    this.mapTimer = setTimeout(() => void this.pollMap(), delayMs);
  }

  /** The crawl map's counts while the job runs, at most every few seconds. */
  private async pollMap(): Promise<void> {
    if (this.mapInFlight || this.complete) return;
    this.mapInFlight = true;
    try {
      await this.readMap();
    } finally {
      this.mapInFlight = false;
      if (!this.complete && !this.stopController.signal.aborted) this.scheduleMapPoll(this.options.mapPollMs ?? 3000);
    }
  }

  /** GET crawl-map?limit=1: the counts and error summary (not the entries) into the progress state. */
  private async readMap(): Promise<void> {
    try {
      const { body } = await this.options.client.json<CrawlMap>(
        'GET',
        `/api/v1/jobs/${encodeURIComponent(this.options.job.id)}/crawl-map`,
        {
          query: { limit: 1 },
          timeoutMs: 10_000,
          signal: this.stopController.signal,
        },
      );
      this.totals.crawlMap = body;
      this.state.rateLimited = body.error_summary?.has_rate_limit === true;
      this.state.skipped = skippedCount(body);
      this.refresh();
    } catch {
      // The stream reports connection trouble; the map is only extra detail.
    }
  }

  private async onInterrupt(): Promise<void> {
    const { prompt, display, colors } = this.options;
    if (this.prompting || !prompt) {
      this.detach();
      return;
    }
    this.prompting = true;
    display.pause();
    const choice = await prompt.ask(this.options.job.id, jobNoun(this.options.job.type));
    this.prompting = false;
    if (this.complete || this.stopController.signal.aborted) return;
    if (choice === 'detach') return this.detach();
    display.resume();
    if (choice === 'continue') return;
    this.cancelledByUser = true;
    this.state.cancelling = true;
    this.refresh();
    try {
      await this.options.client.json('POST', `/api/v1/jobs/${encodeURIComponent(this.options.job.id)}/cancel`, { timeoutMs: 30_000 });
      display.note(colors.yellow(`cancel requested for ${this.options.job.id}; waiting for the job to stop…`));
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        display.note(colors.dim('the job had already finished'));
      } else {
        this.state.cancelling = false;
        this.cancelledByUser = false;
        display.note(colors.red(`could not cancel: ${error instanceof CliError ? error.message : String(error)}`));
      }
      this.refresh();
    }
  }

  private detach(): void {
    this.stopController.abort(new Detach());
  }
}

/**
 * The line for a page that failed while the job goes on: which URL, its category and why, so a person can
 * retry or look it up (`gleaner crawl-map JOB --status failed`); with --json one JSON line.
 */
export function pageWarning(data: unknown, json: boolean, colors: Colors): string {
  const page = (typeof data === 'object' && data !== null ? data : { message: String(data) }) as {
    url?: string;
    error_category?: string | null;
    error_message?: string | null;
    message?: string;
  };
  const message = page.error_message ?? page.message ?? null;
  if (json)
    return JSON.stringify({ warning: { url: page.url ?? null, error_category: page.error_category ?? null, error_message: message } });
  const what = page.url ? `${page.url} failed` : 'a page failed';
  const category = page.error_category ? ` [${page.error_category}]` : '';
  return colors.yellow(`warning: ${what}${category}${message ? `: ${message}` : ''}`);
}
