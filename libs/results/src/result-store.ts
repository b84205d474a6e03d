import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { newId, nowIso } from '@app/core';
import { JobsService, type JobRecord } from '@app/jobs';
import { redactSecrets } from './capture-redaction';
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
import { ResultsRepository } from './results.repository';
import { SINGLE_PAGE_KEY, SINGLE_RESULT_TYPES } from './page-key';

/**
 * Writes page results of every job type (`job_results`): stored once per page, then announced on the job stream
 * and to webhooks (JobsService.publishResult); and the debug captures of jobs with capture_debug.
 */
@Injectable()
export class ResultStore {
  constructor(
    private readonly repository: ResultsRepository,
    private readonly jobs: JobsService,
  ) {}

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
   * storePage for several crawl pages at once (a crawl owner's commit batch, docs/crawl.md "Commit batches"):
   * the pages not `firstTime` looked up in one read, the seqs of the others drawn in one write and their records
   * stored in one insert. Same guarantee per page as storePage: stored once, the first record returned. A record
   * refused by the insert (its page stored meanwhile, or a seq another writer also got) goes the one-page way.
   */
  async storePages(
    job: JobRecord,
    pages: ReadonlyArray<{ pageKey: string; input: RecordResultInput; firstTime: boolean }>,
  ): Promise<ResultRecord[]> {
    const ids = pages.map((p) => `${job._id}:p:${p.pageKey}`);
    const found = new Map((await this.repository.findByIds(ids.filter((_, i) => !pages[i].firstTime))).map((r) => [r._id, r]));
    const out: Array<ResultRecord | undefined> = ids.map((id) => found.get(id));
    const todo = [...ids.keys()].filter((i) => !out[i]);
    if (todo.length === 0) return out as ResultRecord[];
    const first = await this.repository.nextSeqs(job._id, todo.length);
    const records = todo.map((i, n) => ({ ...this.buildRecord(job, first + n, pages[i].input), _id: ids[i] }));
    const refused = await this.repository.insertMany(records);
    for (const [n, i] of todo.entries()) {
      out[i] = refused.has(ids[i]) ? (await this.storeOnce(job, ids[i], pages[i].input)).record : records[n];
    }
    return out as ResultRecord[];
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
}
