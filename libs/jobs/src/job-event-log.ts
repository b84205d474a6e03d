import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { nowIso } from '@app/core';
import { EVENT_BUS, type EventBusPort } from '@app/events';
import { JobAnnouncer } from './job-announcer';
import { JobLifecycleHooks } from './job-lifecycle-hooks';
import { JobsRepository } from './jobs.repository';
import {
  crawlCounters,
  groundingCounters,
  isTerminal,
  onCrawlEngine,
  type JobEventName,
  type JobEventRecord,
  type JobRecord,
  type JobStatus,
} from './job.types';

/** An event whose seq the caller's own write of the job drew (JobEventLog.storeDrawn). */
export interface DrawnEvent {
  event: JobEventName;
  data: Record<string, unknown>;
  dedupeKey?: string;
}

/** A finished crawl page's events (JobEventLog.publishPages). */
export interface PublishedPage {
  /** The `result` event's item and its dedupe key (absent: the page stored no result). */
  result?: { item: Record<string, unknown>; dedupeKey: string };
  /** The stream's `error` event of a failed page and its dedupe key. */
  error?: { data: Record<string, unknown>; dedupeKey: string };
  /** No earlier announcement of the page is possible (its dedupe keys are not looked up first). */
  firstTime: boolean;
}

/**
 * A job's event log (docs/api.md "Jobs"): events are stored under their seq, then announced on the job's bus
 * channel so streams and waiters on any replica see them; a finished page also goes to the lifecycle listeners
 * (webhooks). The shapes of the `status` and `complete` events are made here.
 */
@Injectable()
export class JobEventLog {
  /** Announcements coalesced per job (job-announcer.ts): a crawl's pages cost Redis far fewer publishes than events. */
  private readonly announcer: JobAnnouncer;

  constructor(
    private readonly repository: JobsRepository,
    private readonly hooks: JobLifecycleHooks,
    @Inject(EVENT_BUS) private readonly bus: EventBusPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.announcer = new JobAnnouncer(bus);
  }

  /**
   * A finished page: the `result` stream event and the `job.page` lifecycle event (webhooks). With
   * `exactlyOnce` (crawl pages, which may be re-announced after a crash) both carry the dedupe key
   * and go out only while the job runs, so nothing is announced twice or after a cancel; returns
   * whether the page was announced now. `firstTime`: the caller knows of no earlier announcement (the
   * store's unique dedupe key still refuses a second one; it then leaves a seq gap).
   */
  async publishResult(
    job: JobRecord,
    item: Record<string, unknown>,
    exactlyOnce?: { dedupeKey: string; firstTime?: boolean },
  ): Promise<boolean> {
    const stored = await this.emit(
      job._id,
      'result',
      item,
      exactlyOnce ? { dedupeKey: exactlyOnce.dedupeKey, onlyWhileRunning: true, firstTime: exactlyOnce.firstTime } : {},
    );
    if (!stored) {
      // Stored already: perhaps by a run that met a store outage (or died) before its webhooks were stored.
      // Announcing again is safe, the listeners store an event once per dedupe key.
      if (exactlyOnce && (await this.repository.hasEvent(job._id, exactlyOnce.dedupeKey)))
        await this.hooks.notify({ type: 'job.page', job, data: item, occurred_at: nowIso(), dedupeKey: exactlyOnce.dedupeKey });
      return false;
    }
    await this.hooks.notify({ type: 'job.page', job, data: item, occurred_at: nowIso(), dedupeKey: exactlyOnce?.dedupeKey });
    return true;
  }

  /**
   * Several finished crawl pages at once (a crawl owner's commit batch, docs/crawl.md "Commit batches"): each
   * page's `result` event (and `job.page` lifecycle event) when it has a result, and its stream `error` event
   * when it failed, all exactly once under their dedupe keys and only while the job runs, as publishResult and
   * emit do one by one; their seqs are drawn in one write and the events stored in one insert.
   */
  async publishPages(job: JobRecord, pages: ReadonlyArray<PublishedPage>): Promise<void> {
    const events: Array<{
      event: JobEventName;
      data: Record<string, unknown>;
      dedupeKey: string;
      firstTime: boolean;
      page: PublishedPage;
    }> = [];
    for (const page of pages) {
      if (page.result)
        events.push({ event: 'result', data: page.result.item, dedupeKey: page.result.dedupeKey, firstTime: page.firstTime, page });
      if (page.error)
        events.push({ event: 'error', data: page.error.data, dedupeKey: page.error.dedupeKey, firstTime: page.firstTime, page });
    }
    if (events.length === 0) return;
    const stored = await this.repository.appendEvents(job._id, events, { onlyWhileRunning: true });
    for (const [i, record] of stored.entries()) {
      const { event, data, dedupeKey } = events[i];
      if (record) await this.announce(record);
      if (event !== 'result') continue;
      // Stored already (a run that met a store outage or died before its webhooks were stored): announcing
      // again is safe, the listeners store an event once per dedupe key.
      if (!record && !(await this.repository.hasEvent(job._id, dedupeKey))) continue;
      await this.hooks.notify({ type: 'job.page', job, data, occurred_at: nowIso(), dedupeKey });
    }
  }

  async emit(
    jobId: string,
    event: JobEventName,
    data: Record<string, unknown>,
    options: { dedupeKey?: string; onlyWhileRunning?: boolean; firstTime?: boolean } = {},
  ): Promise<boolean> {
    const record = await this.repository.appendEvent(jobId, event, data, options);
    if (!record) return false;
    await this.announce(record);
    return true;
  }

  /** Stores events under seqs drawn by the caller's own write of the job, and announces those stored now. */
  async storeDrawn(jobId: string, firstSeq: number, events: DrawnEvent[]): Promise<void> {
    for (const record of await this.repository.storeDrawnEvents(jobId, firstSeq, events)) if (record) await this.announce(record);
  }

  /**
   * "Something new happened" on the job's channel: the seq for streams, and for waiters of a synchronous
   * answer whether the job is finished by it (`terminal`: its `complete` event or a terminal status), so they
   * read the job once instead of after each of its events.
   */
  private async announce(record: JobEventRecord): Promise<void> {
    const terminal = record.event === 'complete' || (record.event === 'status' && isTerminal(record.data.status as JobStatus));
    await this.announcer.announce(record.job_id, { seq: record.seq, event: record.event, ...(terminal ? { terminal: true } : {}) });
  }

  statusData(job: JobRecord): Record<string, unknown> {
    return {
      job_id: job._id,
      status: job.status,
      page_count: job.page_count,
      urls_queued: job.urls_queued,
      failed_count: job.failed_count,
      cost_usd: job.cost_usd,
      token_usage_input: job.token_usage_input,
      token_usage_output: job.token_usage_output,
      ...(onCrawlEngine(job.type) ? crawlCounters(job) : {}),
      ...groundingCounters(job),
    };
  }

  completeData(job: JobRecord): Record<string, unknown> {
    return {
      job_id: job._id,
      status: job.status,
      page_count: job.page_count,
      cost_usd: job.cost_usd,
      results_url: `${this.config.publicUrl ?? ''}/api/v1/jobs/${job._id}/results`,
      error_category: job.error_category,
      error_message: job.error_message,
    };
  }
}
