import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Errors, newId, nowIso } from '@app/core';
import { JobsRepository, JobsService, isTerminal, type JobRecord } from '@app/jobs';
import { LOGGER, type AppLogger } from '@app/observability';
import { redactSecrets } from './capture-redaction';
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
import {
  toCaptureView,
  toResultEventItem,
  toResultItem,
  type CaptureRecord,
  type CaptureView,
  type RecordCaptureInput,
  type RecordResultInput,
  type ResultItem,
  type ResultRecord,
} from './result.types';
import { EXPORT_BATCH_SIZE, ResultsRepository, type Owner } from './results.repository';
import { SINGLE_PAGE_KEY, SINGLE_RESULT_TYPES } from './page-key';

/** Download links live this long (docs/api.md "Results and downloads": expiry 1 hour). */
export const DOWNLOAD_TTL_SECONDS = 3600;
/** Bytes gathered before one socket write (fewer, larger writes; still bounded). */
const WRITE_CHUNK_BYTES = 64 * 1024;

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
 * Page results of every job type: stored once per page (`job_results`), announced on the job stream
 * and to webhooks, exported as JSON / JSON lines / YAML (optionally merged) by streaming from the
 * store, and downloadable through signed links. Also the debug captures of jobs with capture_debug.
 */
@Injectable()
export class ResultsService {
  private readonly signer: DownloadSigner;

  constructor(
    private readonly repository: ResultsRepository,
    private readonly jobs: JobsService,
    private readonly jobsRepository: JobsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    this.signer = new DownloadSigner(config.secret, config.previousSecrets);
  }

  /**
   * Records one page result: persists it first (so it is exportable as soon as anyone hears of it),
   * then emits the SSE `result` event and the `job.page` webhook event. Job counters (page_count,
   * tokens, cost) stay the handler's business (JobsService.progress).
   */
  async record(job: JobRecord, input: RecordResultInput, options: { startedNow?: boolean } = {}): Promise<ResultItem> {
    if (SINGLE_RESULT_TYPES.has(job.type)) return this.recordSingle(job, input, options.startedNow ?? false);
    return this.append(job, input);
  }

  private async append(job: JobRecord, input: RecordResultInput): Promise<ResultItem> {
    const record = this.buildRecord(job, await this.repository.nextSeq(job._id), input);
    await this.repository.insert(record);
    await this.jobs.publishResult(job, { ...toResultEventItem(record, job.type) });
    return toResultItem(record, job.type);
  }

  /**
   * The completed result of a one-page job (extract, analyze), stored and announced at most once: a run
   * redone after its crawler died between storing the result and finishing the job finds the first
   * result (and its event) instead of adding a second. Failed results are kept as before (a retried
   * attempt after an internal error adds its own).
   */
  private async recordSingle(job: JobRecord, input: RecordResultInput, startedNow: boolean): Promise<ResultItem> {
    if (input.status === 'failed') return this.append(job, input);
    const id = `${job._id}:p:${SINGLE_PAGE_KEY}`;
    // A job started by this run has no result of an earlier run to look for (the insert still refuses a second one).
    const { record: stored, inserted } = await this.storeOnce(job, id, input, startedNow);
    // Stored just now, it cannot have been announced (a result is announced after it is stored): no lookup of its event.
    await this.jobs.publishResult(job, { ...toResultEventItem(stored, job.type) }, { dedupeKey: `result:${id}`, firstTime: inserted });
    return toResultItem(stored, job.type);
  }

  /**
   * A crawl page's result, stored at most once per page: its `_id` comes from the page key, so a
   * page redone after a crash finds the first result instead of adding a second. No events here:
   * the crawl announces the page itself, exactly once. Returns the stored record (the first one).
   * `firstTime`: the caller knows of no earlier run of the page that got this far; the lookup before the
   * insert is spared (a repeat is still found, by the insert's unique `_id`, at the cost of a seq gap).
   */
  async storePage(job: JobRecord, pageKey: string, input: RecordResultInput, options: { firstTime?: boolean } = {}): Promise<ResultRecord> {
    return (await this.storeOnce(job, `${job._id}:p:${pageKey}`, input, options.firstTime === true)).record;
  }

  /**
   * The record with this `_id`: the one already stored, or a new one under the job's next seq. A seq
   * another writer also got (a store whose counter is not atomic under concurrency, such as the test
   * stand-in) is never taken for "already stored": a new seq is drawn instead, so a page is never
   * reported stored without being stored.
   */
  private async storeOnce(
    job: JobRecord,
    id: string,
    input: RecordResultInput,
    firstTime = false,
  ): Promise<{ record: ResultRecord; inserted: boolean }> {
    for (let attempt = 1; ; attempt++) {
      const existing = firstTime && attempt === 1 ? null : await this.repository.findById(id);
      if (existing) return { record: existing, inserted: false };
      const record = { ...this.buildRecord(job, await this.repository.nextSeq(job._id), input), _id: id };
      const outcome = await this.repository.insertOnce(record);
      if (outcome === 'inserted') return { record, inserted: true };
      if (outcome !== 'seq-taken') return { record: outcome, inserted: false };
      if (attempt >= 20) throw new Error(`no free result seq for ${id} after ${attempt} attempts`);
    }
  }

  /** One result record of the caller's job by its public id, or null. */
  findItem(caller: Caller, jobId: string, resultId: string): Promise<ResultRecord | null> {
    return this.repository.findOwnItem({ userId: caller.userId }, jobId, resultId);
  }

  /** The stored result of a crawl page, or null. */
  pageRecord(job: JobRecord, pageKey: string): Promise<ResultRecord | null> {
    return this.repository.findById(`${job._id}:p:${pageKey}`);
  }

  private buildRecord(job: JobRecord, seq: number, input: RecordResultInput): ResultRecord {
    const failed = input.status === 'failed';
    const record: ResultRecord = {
      _id: `${job._id}:${String(seq).padStart(10, '0')}`,
      id: newId(),
      job_id: job._id,
      user_id: job.user_id,
      seq,
      url: input.url,
      status: failed ? 'failed' : 'completed',
      data: input.data === undefined ? null : input.data,
      error_category: failed ? (input.error_category ?? 'internal') : null,
      error_message: failed ? (input.error_message ?? '') : null,
      depth: input.depth ?? 0,
      parent_url: input.parent_url ?? null,
      token_usage_input: input.token_usage_input ?? 0,
      token_usage_output: input.token_usage_output ?? 0,
      fetch_duration_ms: input.fetch_duration_ms ?? null,
      extract_duration_ms: input.extract_duration_ms ?? null,
      llm_model: input.llm_model ?? null,
      llm_provider: input.llm_provider ?? null,
      cost_usd: input.cost_usd ?? null,
      job_type: job.type,
      ...(input.metadata ? { metadata: input.metadata } : {}),
      ...(input.warnings && input.warnings.length > 0 ? { warnings: input.warnings } : {}),
      created_at: nowIso(),
    };
    return record;
  }

  /**
   * Stores one debug capture when the job has capture_debug (otherwise does nothing and returns null).
   * Only the fields of docs/api.md "Debug capture fields" are kept; `redact` lists literal values (e.g. the BYOK key
   * of this request) to scrub from every string besides the built-in key patterns.
   */
  async recordCapture(
    job: JobRecord,
    input: RecordCaptureInput,
    options: { redact?: readonly string[] } = {},
  ): Promise<CaptureView | null> {
    if (!job.capture_debug) return null;
    const clean = (text: string | undefined) => redactSecrets(text ?? '', options.redact);
    const schema = typeof input.schema === 'string' ? input.schema : JSON.stringify(input.schema);
    const hints: Record<string, string> = {};
    for (const [name, value] of Object.entries(input.hints_applied ?? {})) hints[name] = clean(String(value));
    const record: CaptureRecord = {
      _id: newId(),
      id: '',
      job_id: job._id,
      user_id: job.user_id,
      job_type: job.type,
      url: input.url,
      timestamp: input.timestamp ?? nowIso(),
      prompt: clean(input.prompt),
      raw_content: clean(input.raw_content),
      schema: clean(schema),
      hints_applied: hints,
      request: {
        content_size: input.request.content_size ?? input.raw_content.length,
        fetch_mode: input.request.fetch_mode ?? '',
        model: input.request.model ?? '',
        prompt_size: input.request.prompt_size ?? input.prompt.length,
        provider: input.request.provider ?? '',
      },
      response: {
        duration_ms: Math.round(input.response.duration_ms ?? 0),
        error: clean(input.response.error),
        input_tokens: input.response.input_tokens ?? 0,
        output_tokens: input.response.output_tokens ?? 0,
        success: input.response.success ?? !input.response.error,
      },
    };
    record.id = record._id;
    await this.repository.insertCapture(record);
    return toCaptureView(record);
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

  /**
   * Writes a body to a raw response with backpressure (waits for `drain` when the socket buffer is
   * full), so memory stays bounded by one store batch plus one write chunk. A failure after the
   * headers went out destroys the connection: a truncated file must not look complete.
   */
  async send(response: ServerResponse, body: BodyStream, headers: Record<string, string>): Promise<void> {
    const head = { ...headers, ...bodyHeaders(body) };
    if (typeof body.chunks === 'string') {
      if (!response.destroyed) response.writeHead(200, { ...head, 'content-length': Buffer.byteLength(body.chunks) }).end(body.chunks);
      return;
    }
    let buffer = '';
    const flush = async () => {
      if (!response.headersSent) response.writeHead(200, head);
      if (!buffer) return;
      const ok = response.write(buffer);
      buffer = '';
      if (!ok) await drained(response);
    };
    try {
      for await (const chunk of body.chunks) {
        if (response.destroyed) return; // client went away: leaving the loop closes the store cursor
        buffer += chunk;
        if (buffer.length >= WRITE_CHUNK_BYTES) await flush();
      }
      if (response.destroyed) return;
      if (response.headersSent) {
        await flush();
        response.end();
      } else {
        // A body within one write chunk (most jobs): headers and body in one write, with its length, not chunked.
        response.writeHead(200, { ...head, 'content-length': Buffer.byteLength(buffer) });
        response.end(buffer);
      }
    } catch (error) {
      this.logger.error({ err: error }, 'results export failed mid-stream');
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    }
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

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
