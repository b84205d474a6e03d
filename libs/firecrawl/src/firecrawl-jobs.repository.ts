import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { JobDeletionHooks } from '@app/jobs';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';
import type { SupportedFormat } from './wire/scrape-options';

/** What a /v2 request asked of a Gleaner job that the job itself does not keep: Firecrawl's format names. */
export interface FirecrawlJobNote {
  /** The Gleaner job's id. */
  _id: string;
  user_id: string;
  /** `tracked`: the one-URL batch job of a `changeTracking` scrape with a `tag` (its history, docs/firecrawl.md). */
  kind: 'crawl' | 'batch' | 'extract' | 'tracked';
  /** The Firecrawl formats to answer (`images` and `rawHtml` are both Gleaner's `raw_html`, say). */
  formats: SupportedFormat[];
  /** A crawl or batch made with a schema (a `json`-only format list): its pages' data is the `json`. */
  json_only: boolean;
  /** Extract: invalid URLs left out with ignoreInvalidURLs. */
  invalid_urls?: string[];
  /** Tracked: the change-tracking tag and the URL asked for. */
  tag?: string;
  url?: string;
  created_at: string;
  [key: string]: unknown;
}

/**
 * The only code that touches `firecrawl_jobs`: one small record per job made through /v2. It goes with its
 * job (DELETE /jobs/{id}) and with its tenant.
 */
@Injectable()
export class FirecrawlJobsRepository implements OnModuleInit {
  private notes!: Collection<FirecrawlJobNote>;

  constructor(
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly deletions: JobDeletionHooks,
  ) {}

  async onModuleInit(): Promise<void> {
    this.notes = await this.store.collection<FirecrawlJobNote>({ name: 'firecrawl_jobs', indexes: [{ fields: { user_id: 1 } }] });
    this.erasers.register({ name: 'firecrawl_jobs', phase: 'data', run: (userId) => this.notes.deleteMany({ user_id: userId }) });
    this.deletions.register(async (job) => {
      await this.notes.deleteOne({ _id: job._id });
    });
  }

  async insert(note: FirecrawlJobNote): Promise<void> {
    await this.notes.insertOne(note);
  }

  /** The jobs of the owner's change-tracking history `tag` of a URL, newest first (at most `limit`). */
  async trackedJobs(userId: string, tag: string, url: string, limit = 50): Promise<string[]> {
    const notes = await this.notes.find({ user_id: userId, kind: 'tracked', tag, url }, { sort: { created_at: -1 }, limit });
    return notes.map((note) => note._id);
  }

  /** The note of the owner's job, or null (a job made by Gleaner's own API). */
  find(userId: string, jobId: string): Promise<FirecrawlJobNote | null> {
    return this.notes.findOne({ _id: jobId, user_id: userId });
  }
}
