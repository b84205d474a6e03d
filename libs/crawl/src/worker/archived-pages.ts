import type { PageArchive } from '@app/archive';
import { keepPage } from '@app/extraction';
import { AppError } from '@app/core';
import type { JobRecord } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import { loadOptionsFor, type LoadedPage, type LoadOptions, type PageFormatsPlan, type PageLoaderService } from '@app/pages';
import type { ArchiveSource, WarcSource } from '../crawl-input';
import type { PageOutcome } from '../crawl.types';
import { archivedFetch } from '../archived-fetch';

/**
 * The page workers' side of the archive (docs/archive.md): after a fetch, the page as it was fetched is
 * kept (never failing the page: archiving is a side effect, and an error is logged); for a
 * re-extraction or a WARC extraction, the page is read from the archive and converted as a fetch
 * would have been, so extraction runs on exactly what the model saw then. No request is made.
 */
export class ArchivedPages {
  constructor(
    private readonly archive: Pick<PageArchive, 'keep' | 'load' | 'copy'>,
    private readonly loader: Pick<PageLoaderService, 'convert'>,
    private readonly logger: AppLogger,
  ) {}

  keep(job: JobRecord, key: string, requestedUrl: string, page: LoadedPage): Promise<void> {
    return keepPage(this.archive, job, key, requestedUrl, page, this.logger);
  }

  /**
   * The archived page of an archive-sourced job, converted (as its page formats ask, for a job that stores
   * formats: the Firecrawl-compatible API's maxAge, docs/firecrawl.md); or the outcome when it cannot be read.
   */
  async read(
    job: JobRecord,
    source: ArchiveSource | WarcSource,
    key: string,
    linkSelector?: string,
    formats: PageFormatsPlan | null = null,
  ): Promise<LoadedPage | PageOutcome> {
    const started = Date.now();
    const page =
      source.kind === 'archive'
        ? await this.archive.copy(job.user_id, source.source_job_id, job._id, key, source.single_page?.key ?? key)
        : await this.archive.load(job.user_id, job._id, key);
    if (!page) {
      return {
        kind: 'skipped',
        reason: 'archive_missing',
        why: 'the page is not in the archive (past GLEANER_ARCHIVE_TTL_DAYS, deleted with its job, or never kept)',
        final_url: null,
      };
    }
    const { record } = page;
    if (record.failure) {
      return {
        kind: 'failed',
        error_category: record.failure.category,
        error_message: record.failure.message,
        error_details: null,
        http_status: record.status || null,
        final_url: null,
        retryable: false,
        usage: null,
      };
    }
    const fetch = archivedFetch(page, true);
    try {
      const conversion: Pick<LoadOptions, 'conversion' | 'also' | 'tags'> = formats
        ? loadOptionsFor(formats)
        : { conversion: 'full', also: { attributes: true } };
      const content = await this.loader.convert(fetch, {
        mode: conversion.conversion ?? 'full',
        linkSelector,
        also: conversion.also,
        tags: conversion.tags,
      });
      return { fetch, content, fetchedAt: record.fetched_at, fetchDurationMs: Date.now() - started };
    } catch (error) {
      const appError = error instanceof AppError ? error : null;
      return {
        kind: 'failed',
        error_category: appError?.category ?? 'internal',
        error_message: appError ? (appError.detail ?? appError.message) : 'The archived page could not be converted.',
        error_details: null,
        http_status: record.status,
        final_url: record.final_url,
        retryable: false,
        usage: null,
      };
    }
  }
}
