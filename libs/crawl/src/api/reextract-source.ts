import type { PageArchive } from '@app/archive';
import { Errors } from '@app/core';
import { parseExtractInput } from '@app/extraction';
import type { JobRecord } from '@app/jobs';
import { SINGLE_PAGE_KEY } from '@app/results';
import { resolveCrawlOptions } from '@app/sites';
import { parseCrawlInput, type ArchiveSource, type CrawlJobInput, type ReextractOnly } from '../crawl-input';
import type { CrawlStorePort } from '../crawl.repository';

/** What a re-extraction takes from its source job: what it extracted and how, and the pages to read again. */
export interface ReextractSource {
  /** The source's schema, site, model and options, as a crawl input. */
  input: CrawlJobInput;
  /** Pages to re-extract (the job's `max_pages`); 0 is a 409 saying `nothing`. */
  pages: number;
  nothing: string;
  /** A one-page source: its page (the seeding offers it, the workers copy it from its key). */
  singlePage?: ArchiveSource['single_page'];
}

const NOTHING_TO_REEXTRACT: Record<ReextractOnly, string> = {
  all: 'The job fetched no pages to re-extract.',
  failed: 'The job has no failed pages to re-extract.',
  ungrounded: 'The job has no pages with a value not found on the page to re-extract (docs/provenance.md).',
};

/** A crawl-engine job (crawl, batch, reextract, warc-extract): its fetched pages, as its crawl map counts them. */
export async function crawlSource(
  repository: CrawlStorePort<{ map: 'countFetched' }>,
  job: JobRecord,
  only: ReextractOnly,
): Promise<ReextractSource> {
  const pages = await repository.map.countFetched(job._id, only);
  // First: a job refused before it started (a monitor's run, docs/monitors.md) fetched nothing and has no crawl input to read.
  if (pages === 0) throw Errors.conflict(NOTHING_TO_REEXTRACT[only]);
  return { input: parseCrawlInput(job.input), pages, nothing: NOTHING_TO_REEXTRACT[only] };
}

/**
 * An extract (docs/archive.md "Extracts"): its one page, when it kept it (`archive: true`) and it is what
 * `only` asks for: `failed` when the extract failed, `ungrounded` when its answer had a value not on the page.
 */
export async function extractSource(archive: Pick<PageArchive, 'record'>, job: JobRecord, only: ReextractOnly): Promise<ReextractSource> {
  const extract = parseExtractInput(job.input);
  const input: CrawlJobInput = {
    url: extract.url,
    schema: extract.schema,
    schema_id: extract.schema_id,
    page_formats: null,
    site_id: extract.site_id,
    llm_config: extract.llm_config,
    options: resolveCrawlOptions({ fetch_mode: extract.fetch_mode, provenance: extract.provenance, grounding: extract.grounding }),
    extraction_mode: extract.extraction_mode,
  };
  const kept = await archive.record(job.user_id, job._id, SINGLE_PAGE_KEY);
  if (!kept || kept.failure) {
    return {
      input,
      pages: 0,
      nothing:
        'The extract kept no page in the archive: it ran without `archive: true`, failed before its page was fetched, or its page is past GLEANER_ARCHIVE_TTL_DAYS.',
    };
  }
  const wanted = only === 'all' || (only === 'failed' ? job.status === 'failed' : (job.ungrounded_fields ?? 0) > 0);
  return {
    input,
    pages: wanted ? 1 : 0,
    nothing: NOTHING_TO_REEXTRACT[only],
    singlePage: { url: kept.url, key: SINGLE_PAGE_KEY },
  };
}
