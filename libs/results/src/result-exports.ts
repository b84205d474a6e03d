import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Errors } from '@app/core';
import { JobsRepository, JobsService, isTerminal, type JobRecord } from '@app/jobs';
import { DownloadSigner } from './download-signer';
import { mergeItemsOf, itemHash, itemUrl, richness, type ItemPosition } from './merge';
import { publicBaseUrl, type RequestOrigin } from './public-base-url';
import {
  FORMAT_CONTENT_TYPES,
  FORMAT_EXTENSIONS,
  chooseFormat,
  parseFormat,
  serializeAll,
  serializeItems,
  type ResultFormat,
} from './result-formats';
import { itemsFrom, itemsOf, lazyJobType, readUpTo } from './export-items';
import { toCaptureView, toResultItem, type ResultItem } from './result.types';
import { EXPORT_BATCH_SIZE, ResultsRepository, type Owner } from './results.repository';

/** Download links live this long (docs/api.md "Results and downloads": expiry 1 hour). */
export const DOWNLOAD_TTL_SECONDS = 3600;

export interface ExportOptions {
  format?: string;
  merge?: boolean;
  accept?: string;
}

/** A response body ready to stream: access and format were checked before any byte is written. */
export interface BodyStream {
  contentType: string;
  /** Suggested file name (downloads set Content-Disposition with it). */
  filename: string;
  /** The body as it is produced, or all of it when it was already in memory (sent in one write). */
  chunks: AsyncIterable<string> | string;
}

/** The headers a body is sent with (besides its length). */
export function bodyHeaders(body: BodyStream): Record<string, string> {
  return { 'content-type': `${body.contentType}; charset=utf-8`, 'cache-control': 'private, no-store' };
}

export interface DownloadLink {
  job_id: string;
  download_url: string;
  expires_at: string;
}

/**
 * Reads page results out: pages of them, the first one, exports as JSON / JSON lines / YAML (optionally merged)
 * streamed from the store, signed download links and what they open, and the debug captures.
 */
@Injectable()
export class ResultExports {
  private readonly signer: DownloadSigner;

  constructor(
    private readonly repository: ResultsRepository,
    private readonly jobs: JobsService,
    private readonly jobsRepository: JobsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.signer = new DownloadSigner(config.secret, config.previousSecrets);
  }

  /**
   * GET /jobs/{id}/results: 404 for an unknown or foreign job, 406 for an unsupported format (404 first).
   * Without merge, one store read answers a job that has results: the query is scoped by the owner (each
   * record carries `user_id`), and a record names its job's type (`job_type`). The job itself is read only
   * to tell an unknown job (404) from one without results yet, or for records stored before `job_type`.
   */
  async exportResults(caller: Caller, jobId: string, options: ExportOptions): Promise<BodyStream> {
    let format: ResultFormat;
    try {
      format = chooseFormat(options.format, options.accept);
    } catch (error) {
      await this.jobs.getRecord(caller, jobId);
      throw error;
    }
    if (options.merge) return this.bodyFor(await this.jobs.getRecord(caller, jobId), format, true);
    const records = this.repository.iterateOwn({ userId: caller.userId }, jobId)[Symbol.asyncIterator]();
    const head = await readUpTo(records, EXPORT_BATCH_SIZE);
    if (head.records.length === 0) return this.bodyFor(await this.jobs.getRecord(caller, jobId), format, false);
    // A record stored before `job_type` existed: the job says its type (and whether it is still there), as before.
    const job = head.records[0].job_type === undefined ? await this.jobs.getRecord(caller, jobId) : null;
    const body = { contentType: FORMAT_CONTENT_TYPES[format], filename: `${jobId}.${FORMAT_EXTENSIONS[format]}` };
    // All of them in one store batch (most jobs): the body at once, sent in one write without a stream.
    const items = head.done ? itemsOf(head.records, job) : null;
    if (items) return { ...body, chunks: serializeAll(items, format) };
    const typeOf = lazyJobType(job, () => this.jobsRepository.findOwn({ userId: caller.userId }, jobId));
    return { ...body, chunks: serializeItems(itemsFrom(head.records, head.done ? null : records, typeOf), format) };
  }

  /** A page of a job's completed results (the job read first: 404 for an unknown or foreign job), and whether more follow. */
  async page(caller: Caller, jobId: string, skip: number, limit: number): Promise<{ job: JobRecord; items: ResultItem[]; more: boolean }> {
    const job = await this.jobs.getRecord(caller, jobId);
    const { records, more } = await this.repository.pageOwn({ userId: job.user_id }, job._id, skip, limit);
    return { job, items: records.map((record) => toResultItem(record, job.type)), more };
  }

  /** The first page result of a job (the answer of single-page extract/analyze), or null. 404 for a foreign job. */
  async first(caller: Caller, jobId: string): Promise<ResultItem | null> {
    return this.firstOf(await this.jobs.getRecord(caller, jobId));
  }

  /**
   * The first page result of a job record in hand: the synchronous answer of a job the caller just made
   * and waited for (the record came with the wait; reading it again to check its owner would tell nothing new).
   */
  async firstOf(job: JobRecord): Promise<ResultItem | null> {
    const record = await this.repository.firstOwn({ userId: job.user_id }, job._id);
    return record ? toResultItem(record, job.type) : null;
  }

  /**
   * The merged array (merge=true rules) in memory, for answers that embed it (`/crawl?wait=true`
   * returns `data: {items: [...]}`); bounded by the crawl's max_pages. Exports stream instead.
   */
  async merged(caller: Caller, jobId: string): Promise<unknown[]> {
    const job = await this.jobs.getRecord(caller, jobId);
    const items: unknown[] = [];
    for await (const item of this.mergedItems({ userId: job.user_id }, job._id)) items.push(item);
    return items;
  }

  /** GET /jobs/{id}/download: a signed link (1 hour) to this API; 409 while the job is not terminal. */
  async downloadLink(
    caller: Caller,
    jobId: string,
    options: { format?: string; merge?: boolean },
    origin: RequestOrigin,
    ttlSeconds = DOWNLOAD_TTL_SECONDS,
  ): Promise<DownloadLink> {
    const job = await this.jobs.getRecord(caller, jobId);
    const format = options.format === undefined ? 'json' : parseFormat(options.format);
    if (!isTerminal(job.status)) throw Errors.conflict(`Job is ${job.status}; its results can be downloaded once it has finished.`);
    const merge = options.merge ?? false;
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const sig = this.signer.sign({ jobId: job._id, format, merge, expires });
    const query = new URLSearchParams({ format, merge: String(merge), expires: String(expires), sig });
    const base = publicBaseUrl(this.config.publicUrl, origin, this.config.port);
    return {
      job_id: job._id,
      download_url: `${base}/api/v1/downloads/${encodeURIComponent(job._id)}?${query.toString()}`,
      expires_at: new Date(expires * 1000).toISOString(),
    };
  }

  /**
   * GET /downloads/{id}: no bearer key; the signature is the credential. Tampered or expired → 403
   * before anything else is revealed (an unknown job behind a valid signature is a 404).
   */
  async openDownload(jobId: string, query: { format?: string; merge?: string; expires?: string; sig?: string }): Promise<BodyStream> {
    const format = (query.format ?? 'json').toLowerCase();
    const merge = query.merge ?? 'false';
    const expires = /^\d{1,12}$/.test(query.expires ?? '') ? Number(query.expires) : -1;
    const formatOk = format === 'json' || format === 'jsonl' || format === 'yaml';
    // Unknown values cannot have been signed: verify against a canonical form and let the MAC fail.
    this.signer.verify(
      { jobId, format: formatOk ? format : 'json', merge: merge === 'true', expires },
      formatOk && (merge === 'true' || merge === 'false') && expires >= 0 ? query.sig : '',
    );
    const job = await this.jobsRepository.findForWorker(jobId);
    if (!job) throw Errors.notFound('Job');
    return this.bodyFor(job, format as ResultFormat, merge === 'true');
  }

  /** GET /jobs/{id}/debug-capture: `{job_id, enabled, captures}`, streamed (captures hold page content). */
  async debugCaptures(caller: Caller, jobId: string): Promise<BodyStream> {
    const job = await this.jobs.getRecord(caller, jobId);
    const owner: Owner = { userId: job.user_id };
    const repository = this.repository;
    async function* chunks(): AsyncIterable<string> {
      yield `{"job_id":${JSON.stringify(job._id)},"enabled":${job.capture_debug ? 'true' : 'false'},"captures":[`;
      let first = true;
      for await (const capture of repository.iterateCaptures(owner, job._id)) {
        yield (first ? '' : ',') + JSON.stringify(toCaptureView(capture));
        first = false;
      }
      yield ']}\n';
    }
    return { contentType: 'application/json', filename: `${job._id}-debug-capture.json`, chunks: chunks() };
  }

  private bodyFor(job: JobRecord, format: ResultFormat, merge: boolean): BodyStream {
    const owner: Owner = { userId: job.user_id };
    const items = merge ? this.mergedItems(owner, job._id) : this.pageItems(owner, job._id, job.type);
    return {
      contentType: FORMAT_CONTENT_TYPES[format],
      filename: `${job._id}${merge ? '-merged' : ''}.${FORMAT_EXTENSIONS[format]}`,
      chunks: serializeItems(items, format),
    };
  }

  private async *pageItems(owner: Owner, jobId: string, jobType: string): AsyncIterable<ResultItem> {
    for await (const record of this.repository.iterateOwn(owner, jobId)) yield toResultItem(record, jobType);
  }

  /**
   * merge=true in two passes over the store, both streamed. Pass 1 finds, for every `url` field, the
   * position of its richest item (most non-null fields; the first one on a tie). Pass 2 writes items
   * in order, skipping url items that are not their url's winner and items whose canonical JSON was
   * already written. Memory: one entry per distinct url and one hash per distinct url-less item.
   * Failed pages are skipped. Pass 2 reads only what pass 1 saw (seq ≤ its last), so a running
   * job's new pages cannot unbalance the passes; a late page below that seq is handled on its own.
   */
  private async *mergedItems(owner: Owner, jobId: string): AsyncIterable<unknown> {
    const winners = new Map<string, { position: ItemPosition; richness: number }>();
    let lastSeq = 0;
    for await (const record of this.repository.iterateOwn(owner, jobId, { onlyCompleted: true })) {
      lastSeq = record.seq;
      mergeItemsOf(record).forEach((item, index) => {
        const url = itemUrl(item);
        if (url === null) return;
        const score = richness(item);
        const current = winners.get(url);
        if (!current || score > current.richness) winners.set(url, { position: `${record.seq}:${index}`, richness: score });
      });
    }
    const written = new Set<string>();
    for await (const record of this.repository.iterateOwn(owner, jobId, { onlyCompleted: true, upToSeq: lastSeq })) {
      const items = mergeItemsOf(record);
      for (let index = 0; index < items.length; index++) {
        const item = items[index];
        const url = itemUrl(item);
        if (url !== null) {
          const winner = winners.get(url);
          if (winner && winner.position !== `${record.seq}:${index}`) continue;
          if (!winner) winners.set(url, { position: `${record.seq}:${index}`, richness: richness(item) });
        } else {
          const hash = itemHash(item);
          if (written.has(hash)) continue;
          written.add(hash);
        }
        yield item;
      }
    }
  }
}
