import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CATEGORIES, type ErrorCategory } from '@app/core';
import { IsRfc3339, QueryInteger } from '@app/http';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { JOB_STATUSES, JOB_TYPES, type JobStatus } from '../job.types';

/** Paging further than this is refused (422), not handed to the store. */
export const MAX_OFFSET = 1_000_000;

/** `limit` and `offset` of every paged list of the API (jobs, learned programs). */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: MAX_OFFSET, default: 0 })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: 'must be an integer' })
  @Min(0)
  @Max(MAX_OFFSET)
  offset?: number;
}

/** `GET /jobs`: a page of the caller's jobs, newest first, narrowed by any of these (docs/api.md "Jobs"). */
export class ListJobsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: [...JOB_STATUSES], description: 'Only jobs in this status.' })
  @IsOptional()
  @IsIn([...JOB_STATUSES])
  status?: JobStatus;

  @ApiPropertyOptional({ enum: [...JOB_TYPES], description: 'Only jobs of this type.' })
  @IsOptional()
  @IsIn([...JOB_TYPES])
  type?: string;

  @ApiPropertyOptional({ description: 'Only jobs that named this saved site (`site_id` of an extract, crawl, batch or monitor run).' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  site_id?: string;

  @ApiPropertyOptional({ description: 'Only jobs created at or after this instant (RFC 3339).', example: '2026-11-26T10:00:00.000Z' })
  @IsOptional()
  @IsRfc3339()
  since?: string;

  @ApiPropertyOptional({
    enum: [...ERROR_CATEGORIES],
    description:
      'Only failed (or cancelled) jobs with this error_category: `ssrf_blocked` lists the requests the address guard refused, each with its `error_message` naming the address and the setting that opens it.',
  })
  @IsOptional()
  @IsIn([...ERROR_CATEGORIES])
  error_category?: ErrorCategory;
}

/** A count of a job's answer: an integer, never negative. */
function CountProperty(description?: string): PropertyDecorator {
  return ApiProperty(description === undefined ? { type: 'integer', minimum: 0 } : { type: 'integer', minimum: 0, description });
}

/** A count the answer leaves out where it does not apply. */
function OptionalCountProperty(description: string): PropertyDecorator {
  return ApiPropertyOptional({ type: 'integer', minimum: 0, description });
}

export class PagesByMethodResponse {
  @CountProperty() model!: number;
  @CountProperty() selectors!: number;
  @CountProperty() mixed!: number;
  @CountProperty('Pages stored as formats (a crawl or batch without a schema; no model call).')
  scrape!: number;
  @OptionalCountProperty(
    'Monitor runs only (absent when 0): pages known unchanged by a 304 or their text hash, without a model call (docs/monitors.md).',
  )
  unchanged?: number;
}

export class DuplicateCountsResponse {
  @CountProperty('Pages whose rel=canonical (or `Link: rel=canonical`) names another address of the job.')
  canonical!: number;
  @CountProperty('Pages with the same normalised text as an earlier page (`dedupe` `exact` or `near`).')
  exact!: number;
  @CountProperty('Near-duplicates of an earlier page (`dedupe: near`).')
  near!: number;
  @CountProperty('Pages that redirected onto a page the job fetches on its own.')
  redirect!: number;
}

export class ModelCallsByKindResponse {
  @CountProperty('Calls with the whole page for every field.') full!: number;
  @CountProperty("Calls for some fields, or with the page's text around their values.")
  partial!: number;
}

export class CallTokensResponse {
  @CountProperty() input!: number;
  @CountProperty() output!: number;
}

export class TokensByCallKindResponse {
  @ApiProperty({ type: CallTokensResponse }) full!: CallTokensResponse;
  @ApiProperty({ type: CallTokensResponse }) partial!: CallTokensResponse;
}

export class JobResponse {
  @ApiProperty({ example: '01JD0000000000000000000000' }) id!: string;
  @ApiProperty({ enum: [...JOB_TYPES] }) type!: string;
  @ApiProperty({ enum: [...JOB_STATUSES] }) status!: string;
  @ApiProperty({ type: String, nullable: true, example: 'https://example.com/' }) url!: string | null;
  @ApiProperty() capture_debug!: boolean;
  @ApiProperty({ example: '2026-11-22T05:40:00.123Z' }) created_at!: string;
  @ApiProperty({ type: String, nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) completed_at!: string | null;
  @ApiProperty({ description: 'What the job cost in USD so far: its model calls (failed attempts included) plus the operator fee.' })
  cost_usd!: number;
  @CountProperty('Pages with a result: extracted (or stored as formats) and completed. Single-page jobs: 1 once done.')
  page_count!: number;
  @CountProperty(
    'Crawl-engine jobs: URLs the job has fetched, is fetching or will still fetch (crawl-map entries pending, running, completed or failed). ' +
      'Not every URL it found: URLs ruled out (filters, robots.txt, depth, duplicates, `max_pages`, the budget, the logout links of an auth profile) are `skipped` entries of ' +
      'the crawl map (`skipped_by_reason`), and once every `max_pages` ticket is out the URLs left waiting drop out of this count ' +
      '(docs/crawl.md "Counters"). At the end: the pages fetched (completed and failed entries). Other job types: 0.',
  )
  urls_queued!: number;
  @CountProperty('Pages that failed (their error_category is in the crawl map’s `error_summary`).')
  failed_count!: number;
  @CountProperty('Model input tokens of every call of the job, failed attempts included.')
  token_usage_input!: number;
  @CountProperty('Model output tokens of every call of the job, failed attempts included.')
  token_usage_output!: number;
  @ApiProperty({ type: String, nullable: true }) error_category!: string | null;
  @ApiProperty({ type: String, nullable: true }) error_message!: string | null;
  @ApiPropertyOptional({
    description:
      'Model attempts in order: {provider, model, outcome (success or an error_category), input_tokens, output_tokens, duration_ms, llm_cost_usd, cost_known}.',
    type: 'array',
    items: { type: 'object' },
  })
  attempts?: unknown[];
  @ApiPropertyOptional({
    description:
      'Single-page jobs: {fetched_at, final_url, llm_model, llm_provider, fetch_duration_ms, extract_duration_ms, llm_cost_usd, is_byok}.',
    type: 'object',
    additionalProperties: true,
  })
  extraction?: Record<string, unknown>;
  @ApiPropertyOptional({
    description:
      'Crawls: the options the crawl runs with (the request’s over the saved site’s over the defaults): max_pages, max_depth, patterns, concurrency, delay_ms, fetch_mode, max_cost_usd, ...',
    type: 'object',
    additionalProperties: true,
  })
  options?: Record<string, unknown>;
  @ApiPropertyOptional({ description: "A monitor's run: the monitor (GET /monitors/{id}/runs lists its runs)." })
  monitor_id?: string;
  @ApiPropertyOptional({
    type: PagesByMethodResponse,
    description:
      'Crawls only: `page_count` split by how each page was extracted: `model` (a model call), `selectors` (a learned program, ' +
      'no model call; extraction_mode auto) or `mixed` (the program filled some fields and a partial model call the others).',
  })
  pages_by_method?: PagesByMethodResponse;
  @OptionalCountProperty(
    'Crawls only: pages sent to the model: every page extracted by `model` or `mixed` (learning, verification and check pages ' +
      'included) plus every page whose model call failed (an `llm_*` error_category).',
  )
  model_calls?: number;
  @ApiPropertyOptional({
    type: ModelCallsByKindResponse,
    description:
      "Crawls only: the completed pages' model calls, `full` (the whole page, every field) and `partial` (extraction_mode auto).",
  })
  model_calls_by_kind?: ModelCallsByKindResponse;
  @ApiPropertyOptional({ type: TokensByCallKindResponse, description: 'Crawls only: the tokens of those calls, by kind.' })
  tokens_by_call_kind?: TokensByCallKindResponse;
  @ApiPropertyOptional({
    type: DuplicateCountsResponse,
    description:
      "Crawls and batches: pages fetched and then skipped as duplicates, by reason (the crawl map names each one's original in " +
      '`duplicate_of`; docs/dedup.md). They are `skipped` entries, not in `page_count`.',
  })
  duplicates?: DuplicateCountsResponse;
  @OptionalCountProperty('Crawls and batches: model calls not made because the page was a duplicate found before its model call.')
  model_calls_saved?: number;
  @ApiPropertyOptional({ description: 'Re-extractions only: the job whose archived pages this one extracts again (docs/archive.md).' })
  source_job_id?: string;
  @OptionalCountProperty(
    'Extracts and crawls: values of the results not found on their pages (before the grounding policy; failed `ungrounded_output` ' +
      'pages included; docs/provenance.md).',
  )
  ungrounded_fields?: number;
}

export class JobListResponse {
  @ApiProperty({ type: [JobResponse] }) jobs!: JobResponse[];
  @CountProperty('How many jobs match the filters (all pages).') total!: number;
}
