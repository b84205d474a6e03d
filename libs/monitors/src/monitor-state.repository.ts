import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DOCUMENT_STORE, type Collection, type DocumentStore, type Filter } from '@app/storage';
import { observationId, pageStateId } from './state-ids';
import type { ChangeKind, MonitorChangeRecord, MonitorItemRecord, MonitorObservation, MonitorPageRecord } from './monitor.types';

/** Page ids per bulk write (visit times, forgotten pages). */
const TOUCH_CHUNK = 500;

export interface ChangesQuery {
  since?: string;
  kind?: ChangeKind;
  runId?: string;
  limit: number;
  offset: number;
}

/**
 * The only code that touches a monitor's memory: what each page was last time (`monitor_pages`), the
 * current record of each key (`monitor_items`), the change history (`monitor_changes`) and a run's
 * page observations (`monitor_observations`, dropped once the run's changes are recorded).
 */
@Injectable()
export class MonitorStateRepository implements OnModuleInit {
  private pages!: Collection<MonitorPageRecord>;
  private items!: Collection<MonitorItemRecord>;
  private changes!: Collection<MonitorChangeRecord>;
  private observations!: Collection<MonitorObservation>;
  private lastmods!: Collection<{ _id: string; job_id: string; monitor_id: string; lastmod: string; [key: string]: unknown }>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.pages = await this.store.collection<MonitorPageRecord>({ name: 'monitor_pages', indexes: [{ fields: { monitor_id: 1 } }] });
    this.items = await this.store.collection<MonitorItemRecord>({ name: 'monitor_items', indexes: [{ fields: { monitor_id: 1 } }] });
    this.changes = await this.store.collection<MonitorChangeRecord>({
      name: 'monitor_changes',
      indexes: [{ fields: { monitor_id: 1, detected_at: -1 } }, { fields: { detected_at: 1 } }, { fields: { run_id: 1 } }],
    });
    this.observations = await this.store.collection<MonitorObservation>({
      name: 'monitor_observations',
      indexes: [{ fields: { job_id: 1 } }],
    });
    this.lastmods = await this.store.collection({ name: 'monitor_lastmods', indexes: [{ fields: { job_id: 1 } }] });
  }

  /** The sitemap `lastmod` of a run's URLs (`_id` = `<job>:<url hash>`); a URL met in two sitemaps keeps the first. */
  async rememberLastmods(jobId: string, monitorId: string, entries: Array<{ url: string; lastmod: string }>): Promise<void> {
    if (entries.length === 0) return;
    await this.lastmods.insertMany(
      entries.map((e) => ({ _id: observationId(jobId, e.url), job_id: jobId, monitor_id: monitorId, lastmod: e.lastmod })),
    );
  }

  async lastmod(jobId: string, url: string): Promise<string | null> {
    return (await this.lastmods.findOne({ _id: observationId(jobId, url) }))?.lastmod ?? null;
  }

  page(monitorId: string, url: string): Promise<MonitorPageRecord | null> {
    return this.pages.findOne({ _id: pageStateId(monitorId, url) });
  }

  pagesOf(monitorId: string): AsyncIterable<MonitorPageRecord> {
    return this.pages.iterate({ monitor_id: monitorId }, { sort: { _id: 1 } });
  }

  savePage(page: MonitorPageRecord): Promise<void> {
    return this.pages.replaceOne(page);
  }

  /** Sets the visit time of pages seen as remembered, a chunk of ids per write. */
  async touchPages(ids: string[], fetchedAt: string): Promise<void> {
    for (let i = 0; i < ids.length; i += TOUCH_CHUNK) {
      await this.pages.updateMany({ _id: { $in: ids.slice(i, i + TOUCH_CHUNK) } }, { $set: { fetched_at: fetchedAt, misses: 0 } });
    }
  }

  /** Forgets the pages of these URLs (taken out of a list monitor's list). */
  async forgetPages(monitorId: string, urls: string[]): Promise<void> {
    for (let i = 0; i < urls.length; i += TOUCH_CHUNK) {
      await this.pages.deleteMany({ _id: { $in: urls.slice(i, i + TOUCH_CHUNK).map((url) => pageStateId(monitorId, url)) } });
    }
  }

  deletePage(id: string): Promise<boolean> {
    return this.pages.deleteOne({ _id: id });
  }

  itemsOf(monitorId: string): AsyncIterable<MonitorItemRecord> {
    return this.items.iterate({ monitor_id: monitorId }, { sort: { _id: 1 } });
  }

  listItems(monitorId: string, limit: number, offset: number): Promise<MonitorItemRecord[]> {
    return this.items.find({ monitor_id: monitorId }, { sort: { _id: 1 }, limit, skip: offset });
  }

  countItems(monitorId: string): Promise<number> {
    return this.items.count({ monitor_id: monitorId });
  }

  saveItem(item: MonitorItemRecord): Promise<void> {
    return this.items.replaceOne(item);
  }

  deleteItem(id: string): Promise<boolean> {
    return this.items.deleteOne({ _id: id });
  }

  async addChanges(changes: MonitorChangeRecord[]): Promise<void> {
    if (changes.length) await this.changes.insertMany(changes);
  }

  private changesFilter(monitorId: string, query: Omit<ChangesQuery, 'limit' | 'offset'>): Filter {
    const filter: Filter = { monitor_id: monitorId };
    if (query.since) filter.detected_at = { $gt: query.since };
    if (query.kind) filter.kind = query.kind;
    if (query.runId) filter.run_id = query.runId;
    return filter;
  }

  /** Oldest first, so `since` = the last `detected_at` seen follows the history without gaps. */
  listChanges(monitorId: string, query: ChangesQuery): Promise<MonitorChangeRecord[]> {
    return this.changes.find(this.changesFilter(monitorId, query), {
      sort: { detected_at: 1, _id: 1 },
      limit: query.limit,
      skip: query.offset,
    });
  }

  countChanges(monitorId: string, query: Omit<ChangesQuery, 'limit' | 'offset'>): Promise<number> {
    return this.changes.count(this.changesFilter(monitorId, query));
  }

  /** Drops changes older than the retention (GLEANER_MONITOR_HISTORY_DAYS). */
  pruneChanges(beforeIso: string): Promise<number> {
    return this.changes.deleteMany({ detected_at: { $lt: beforeIso } });
  }

  observe(observation: MonitorObservation): Promise<void> {
    return this.observations.replaceOne(observation);
  }

  observationsOf(jobId: string): AsyncIterable<MonitorObservation> {
    return this.observations.iterate({ job_id: jobId }, { sort: { _id: 1 } });
  }

  async dropObservations(jobId: string): Promise<number> {
    await this.lastmods.deleteMany({ job_id: jobId });
    return this.observations.deleteMany({ job_id: jobId });
  }

  async deleteMonitor(monitorId: string): Promise<void> {
    await this.pages.deleteMany({ monitor_id: monitorId });
    await this.items.deleteMany({ monitor_id: monitorId });
    await this.changes.deleteMany({ monitor_id: monitorId });
    await this.observations.deleteMany({ monitor_id: monitorId });
    await this.lastmods.deleteMany({ monitor_id: monitorId });
  }
}
