import { Injectable } from '@nestjs/common';
import { nowIso } from '@app/core';
import { textHash } from '@app/dedup';
import { MonitorStateRepository } from './monitor-state.repository';
import type { MonitorPageRecord, PageObservation } from './monitor.types';
import { observationId } from './state-ids';

/** What a page worker remembers of a page for a monitor's run (libs/crawl page worker). */
export interface PageMemory {
  etag: string | null;
  lastModified: string | null;
  textHash: string | null;
  links: string[];
  data: unknown;
  /** When the last run saw the page (a sitemap lastmod not after it: unchanged). */
  fetchedAt: string;
}

export type { PageObservation };

/**
 * The monitor side of a page task (docs/monitors.md "Cheap re-runs"): the validators, text hash, links
 * and record the page had last run, and what this run saw of it.
 */
@Injectable()
export class MonitorPagesService {
  constructor(private readonly state: MonitorStateRepository) {}

  async recall(monitorId: string, url: string): Promise<PageMemory | null> {
    const page: MonitorPageRecord | null = await this.state.page(monitorId, url);
    if (!page) return null;
    return {
      etag: page.etag,
      lastModified: page.last_modified,
      textHash: page.text_hash,
      links: page.links,
      data: page.data,
      fetchedAt: page.fetched_at,
    };
  }

  /** Stores the `lastmod` of a monitor run's sitemap URLs (canonical), read by the page workers. */
  rememberLastmods(jobId: string, monitorId: string, urls: string[], lastmods: Array<string | null>): Promise<void> {
    const entries = urls.flatMap((url, i) =>
      url && lastmods[i] && !Number.isNaN(Date.parse(lastmods[i])) ? [{ url, lastmod: lastmods[i] }] : [],
    );
    return this.state.rememberLastmods(jobId, monitorId, entries);
  }

  lastmod(jobId: string, url: string): Promise<string | null> {
    return this.state.lastmod(jobId, url);
  }

  observe(observation: PageObservation): Promise<void> {
    return this.state.observe({ ...observation, _id: observationId(observation.job_id, observation.url), at: nowIso() });
  }
}

/** The request headers that make a fetch conditional on the last run's validators. */
export function conditionalHeaders(memory: PageMemory | null): Record<string, string> | undefined {
  if (!memory) return undefined;
  const headers: Record<string, string> = {};
  if (memory.etag) headers['If-None-Match'] = memory.etag;
  if (memory.lastModified) headers['If-Modified-Since'] = memory.lastModified;
  return Object.keys(headers).length ? headers : undefined;
}

/** The hash of a page's text with whitespace collapsed: one function, the one `dedupe: exact` compares too (@app/dedup). */
export { textHash };
