import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Caller } from '@app/auth';
import type { AppConfig } from '@app/config';
import type { JobRecord, JobsRepository, JobsService } from '@app/jobs';
import { LOGGER, type AppLogger } from '@app/observability';
import type { RequestOrigin } from './public-base-url';
import { DOWNLOAD_TTL_SECONDS, ResultExports, type BodyStream, type DownloadLink, type ExportOptions } from './result-exports';
import { ResultStore } from './result-store';
import type { CaptureView, RecordCaptureInput, RecordResultInput, ResultItem, ResultRecord } from './result.types';
import type { ResultsRepository } from './results.repository';
import { sendBody } from './send-body';

export { bodyHeaders, DOWNLOAD_TTL_SECONDS, type BodyStream, type DownloadLink, type ExportOptions } from './result-exports';

/** What ResultsService.of builds its parts from (specs and tools that run without Nest). */
export interface ResultsServiceParts {
  repository: ResultsRepository;
  jobs: JobsService;
  jobsRepository: JobsRepository;
  config: AppConfig;
  logger: AppLogger;
}

/**
 * The results facade callers inject: each method is one of its parts', where it is implemented and specced:
 * ResultStore (page results and debug captures written and announced), ResultExports (pages, exports, signed
 * downloads, captures read out) and sendBody (a body streamed to a raw HTTP response). New code may inject the
 * part it needs instead.
 */
@Injectable()
export class ResultsService {
  constructor(
    readonly store: ResultStore,
    readonly exports: ResultExports,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /** The service and its parts, wired by name. */
  static of(parts: ResultsServiceParts): ResultsService {
    const { repository, jobs, jobsRepository, config, logger } = parts;
    return new ResultsService(new ResultStore(repository, jobs), new ResultExports(repository, jobs, jobsRepository, config), logger);
  }

  // ResultStore
  record(job: JobRecord, input: RecordResultInput, options: { startedNow?: boolean } = {}): Promise<ResultItem> {
    return this.store.record(job, input, options);
  }

  storePages(
    job: JobRecord,
    pages: ReadonlyArray<{ pageKey: string; input: RecordResultInput; firstTime: boolean }>,
  ): Promise<ResultRecord[]> {
    return this.store.storePages(job, pages);
  }

  storePage(job: JobRecord, pageKey: string, input: RecordResultInput, options: { firstTime?: boolean } = {}): Promise<ResultRecord> {
    return this.store.storePage(job, pageKey, input, options);
  }

  findItem(caller: Caller, jobId: string, resultId: string): Promise<ResultRecord | null> {
    return this.store.findItem(caller, jobId, resultId);
  }

  pageRecord(job: JobRecord, pageKey: string): Promise<ResultRecord | null> {
    return this.store.pageRecord(job, pageKey);
  }

  recordCapture(job: JobRecord, input: RecordCaptureInput, options: { redact?: readonly string[] } = {}): Promise<CaptureView | null> {
    return this.store.recordCapture(job, input, options);
  }

  // ResultExports
  exportResults(caller: Caller, jobId: string, options: ExportOptions): Promise<BodyStream> {
    return this.exports.exportResults(caller, jobId, options);
  }

  page(caller: Caller, jobId: string, skip: number, limit: number): Promise<{ job: JobRecord; items: ResultItem[]; more: boolean }> {
    return this.exports.page(caller, jobId, skip, limit);
  }

  first(caller: Caller, jobId: string): Promise<ResultItem | null> {
    return this.exports.first(caller, jobId);
  }

  firstOf(job: JobRecord): Promise<ResultItem | null> {
    return this.exports.firstOf(job);
  }

  merged(caller: Caller, jobId: string): Promise<unknown[]> {
    return this.exports.merged(caller, jobId);
  }

  downloadLink(
    caller: Caller,
    jobId: string,
    options: { format?: string; merge?: boolean },
    origin: RequestOrigin,
    ttlSeconds = DOWNLOAD_TTL_SECONDS,
  ): Promise<DownloadLink> {
    return this.exports.downloadLink(caller, jobId, options, origin, ttlSeconds);
  }

  openDownload(jobId: string, query: { format?: string; merge?: string; expires?: string; sig?: string }): Promise<BodyStream> {
    return this.exports.openDownload(jobId, query);
  }

  debugCaptures(caller: Caller, jobId: string): Promise<BodyStream> {
    return this.exports.debugCaptures(caller, jobId);
  }

  /** sendBody with this service's logger (a failure mid-stream is logged and the connection destroyed). */
  send(response: ServerResponse, body: BodyStream, headers: Record<string, string>): Promise<void> {
    return sendBody(response, body, headers, this.logger);
  }
}
