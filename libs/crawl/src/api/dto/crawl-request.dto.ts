import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { ExtractionModeProperty, PaginateDto, PaginateProperty, type ExtractionMode } from '@app/extraction';
import { PromptProperty, SchemaIdProperty, SchemaProperty, SiteIdProperty } from '@app/intake';
import {
  ExcludeTagsProperty,
  FullPageScreenshotProperty,
  IncludeTagsProperty,
  OnlyMainContentProperty,
  PageFormatsProperty,
  type ScrapeFormat,
} from '@app/pages';
import { QueryInteger, OptionalHttpUrlProperty } from '@app/http';
import { LlmConfigDto, LlmConfigProperty } from '@app/llm';
import { CrawlOptionsDto } from '@app/sites';
import { JobWebhookFields } from '@app/webhooks';
import { ENTRY_STATUSES, ENTRY_VIAS } from '../../crawl.types';
import { CaptureDebugProperty, MaxCostUsdProperty } from './crawl-engine.properties';

const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

export class CrawlRequestDto extends JobWebhookFields {
  @OptionalHttpUrlProperty({ example: 'https://quotes.example/', description: 'Seed URL. Required unless `site_id` names a saved site.' })
  url?: string;

  @SchemaProperty({
    description:
      'What to extract from every page: shorthand, field list or JSON Schema, as JSON or as a JSON/YAML string. Required unless `schema_id`, `formats` without `json`, or the site has a default schema.',
    example: { quotes: [{ text: 'string', author: 'string' }] },
  })
  schema?: unknown;

  @SchemaIdProperty()
  schema_id?: string;

  @PageFormatsProperty({
    description:
      "Store every page in these formats (no model call, no cost; a site's default schema then does not apply), unless they hold `json`: the schema (`schema`, `schema_id` or the site's default) is then extracted beside them, as `data.json` of each page. `schema` or `schema_id` beside formats without `json` is a 422.",
  })
  formats?: ScrapeFormat[];

  @PromptProperty(
    "Told to the model beside the schema, for every page (with `formats`, only with the `json` format). Without a schema (given, saved or the site's) the model proposes each page's schema from it first (one more model call per page, `metadata.schema`; pages may differ in shape: give a schema for one shape); `extraction_mode: auto` then is a 422.",
  )
  prompt?: string;

  @OnlyMainContentProperty()
  only_main_content?: boolean;

  @IncludeTagsProperty()
  include_tags?: string[];

  @ExcludeTagsProperty()
  exclude_tags?: string[];

  @FullPageScreenshotProperty()
  full_page_screenshot?: boolean;

  @SiteIdProperty("A saved site: its URL, fetch mode, default schema and crawl options as defaults under the request's own.")
  site_id?: string;

  @ApiPropertyOptional({ type: CrawlOptionsDto, description: 'Crawl options; absent fields come from the site, then the defaults.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CrawlOptionsDto)
  options?: CrawlOptionsDto;

  @LlmConfigProperty('Model override; with `api_key` BYOK for this crawl only (never stored or logged).')
  llm_config?: LlmConfigDto;

  @ExtractionModeProperty(
    '`model`: a model call per page. `auto`: per template of the site, the model extracts the first pages, a selector program is learned from them and verified, then it extracts the rest with spot checks (docs/learned-extraction.md). Each result says how it was made (`metadata.method`).',
  )
  extraction_mode?: ExtractionMode;

  @CaptureDebugProperty()
  capture_debug?: boolean;

  @PaginateProperty('crawl')
  paginate?: PaginateDto;

  @MaxCostUsdProperty('Same as `options.max_cost_usd` (the name /extract uses); giving both with different values is a 422.')
  max_cost_usd?: number;
}

export class CrawlQuery {
  @ApiPropertyOptional({
    default: false,
    description: 'Block until the crawl ends (at most `timeout` seconds) and answer with its merged items.',
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  wait?: boolean;

  @ApiPropertyOptional({
    minimum: 10,
    maximum: 120,
    default: 120,
    description: 'Seconds to wait with wait=true; 202 when the crawl outlasts it.',
  })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: 'must be an integer' })
  @Min(10)
  @Max(120)
  timeout?: number;
}

export class CrawlTokenUsage {
  @ApiProperty() input!: number;
  @ApiProperty() output!: number;
}

export class CrawlResultResponse {
  @ApiProperty() job_id!: string;
  @ApiProperty({ enum: ['pending', 'running', 'completed', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ description: 'Address of the job resource (also the Location header).' }) status_url!: string;
  @ApiProperty() page_count!: number;
  @ApiProperty({ description: 'Time the crawl has run (so far).' }) duration_ms!: number;
  @ApiProperty() cost_usd!: number;
  @ApiProperty({ type: CrawlTokenUsage }) token_usage!: CrawlTokenUsage;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'With wait=true and a finished crawl: `{items: [...]}`, the merged results (merge=true rules). Otherwise `{}`.',
  })
  data!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) error_message!: string | null;
}

export class CrawlMapQuery {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: 1000,
    description: 'Page the entries (without limit/offset/status: the whole map, streamed).',
  })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1_000_000, default: 0 })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: 'must be an integer' })
  @Min(0)
  @Max(1_000_000)
  offset?: number;

  @ApiPropertyOptional({ enum: ENTRY_STATUSES })
  @IsOptional()
  @IsIn(ENTRY_STATUSES)
  status?: (typeof ENTRY_STATUSES)[number];

  @ApiPropertyOptional({
    enum: ['true'],
    description:
      'Only the pages with at least one value not found on the page (`ungrounded_fields` > 0; docs/provenance.md), paged like `status`.',
  })
  @IsOptional()
  @IsIn(['true'], { message: 'must be true' })
  ungrounded?: 'true';

  @ApiPropertyOptional({
    enum: ['true'],
    description:
      'Only the pages with a list known to lack items (`items_missing` > 0: the `list_incomplete` warning; docs/long-lists.md), paged like `status`.',
  })
  @IsOptional()
  @IsIn(['true'], { message: 'must be true' })
  list_incomplete?: 'true';
}

export class CrawlMapErrorSummary {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Failed pages by error_category.' })
  by_category!: Record<string, number>;
  @ApiProperty({ description: 'Some page met a 429, or a 503 with Retry-After.' }) has_rate_limit!: boolean;
  @ApiProperty({ description: 'Failed pages.' }) total!: number;
}

export class CrawlMapEntryResponse {
  @ApiProperty({ description: 'Stable id of the URL within the crawl.' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: String, nullable: true }) parent_url!: string | null;
  @ApiProperty({ enum: ENTRY_STATUSES }) status!: string;
  @ApiProperty() depth!: number;
  @ApiProperty({ type: String, nullable: true }) llm_model!: string | null;
  @ApiProperty({ type: String, nullable: true }) llm_provider!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Failed: an error_category. Skipped: why (filtered, max_depth, robots, max_pages, duplicate, budget_exceeded, cancelled, archive_missing, logout_link: a link that would end the session of the auth profile, or a page redirected onto one).',
  })
  error_category!: string | null;
  @ApiProperty({ type: String, nullable: true }) error_message!: string | null;
  @ApiProperty({ type: String, nullable: true }) error_details!: string | null;
  @ApiProperty({ type: Number, nullable: true }) fetch_duration_ms!: number | null;
  @ApiProperty({ type: Number, nullable: true }) extract_duration_ms!: number | null;
  @ApiProperty() token_usage_input!: number;
  @ApiProperty() token_usage_output!: number;
  @ApiProperty() discovered_at!: string;
  @ApiProperty({ type: String, nullable: true }) completed_at!: string | null;
  @ApiProperty({ type: Number, nullable: true }) http_status!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Where redirects led.' }) final_url!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['model', 'selectors', 'mixed', 'scrape', null],
    description:
      'How the data was made (`mixed`: a learned program filled some fields, a partial model call the others; `scrape`: the page stored as formats, a crawl without a schema).',
  })
  method!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['full', 'partial', null],
    description: "The page's model call: `full` (the whole page, every field) or `partial` (extraction_mode auto); null without one.",
  })
  model_call!: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The page's result item id." }) result_id!: string | null;
  @ApiProperty({ description: 'The page met a 429 or a Retry-After on the way.' }) rate_limited!: boolean;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      "Extracted pages: values of the page's data not found on the page (an `ungrounded_output` page's too); null for pages not " +
      'extracted and pages stored before grounding existed.',
  })
  ungrounded_fields!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "Extracted pages whose schema asks for a list of objects: the items the page's count says its data lacks (at least 1 for a list " +
      'whose text was cut); 0 when every list is complete; null for other pages and pages stored before it (docs/long-lists.md).',
  })
  items_missing!: number | null;
  @ApiProperty({
    enum: ENTRY_VIAS,
    description: "How the URL came: the seed, a link, a sitemap, a redirect, or a batch's list.",
  })
  via!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: "A batch's URL: its index in the deduplicated list." })
  list_index!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'A `duplicate` skip after the fetch: the address of the page it repeats (the original, whose result stands for it; with ' +
      "`copy_duplicates`, this entry's `result_id` is a copy of it made when the crawl ended; docs/dedup.md).",
  })
  duplicate_of!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['canonical', 'exact', 'near', 'redirect', null],
    description:
      'Why it is a duplicate: `canonical` (its rel=canonical names the original), `exact` (the same normalised text), `near` (a near-duplicate, `similarity` alike), `redirect` (it redirected onto a page fetched on its own).',
  })
  duplicate_reason!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: "`exact` and `near` duplicates: the texts' similarity (1: the same; a near-duplicate's MinHash estimate, at least 0.85).",
  })
  similarity!: number | null;
}

export class CrawlMapMethodCounts {
  @ApiProperty() model!: number;
  @ApiProperty() selectors!: number;
  @ApiProperty() mixed!: number;
  @ApiProperty({ description: 'Pages stored as formats (a crawl or batch without a schema).' }) scrape!: number;
}

export class CrawlMapResponse {
  @ApiProperty() job_id!: string;
  @ApiProperty() seed_url!: string;
  @ApiProperty() max_depth!: number;
  @ApiProperty({ description: 'Entries in the map (every status): `completed` + `failed` + `skipped` + `pending` + `running`.' })
  total!: number;
  @ApiProperty({ description: 'Entries fetched and extracted (the job’s `page_count`).' }) completed!: number;
  @ApiProperty({ description: 'Entries that failed (the job’s `failed_count`; by category in `error_summary`).' }) failed!: number;
  @ApiProperty({
    description:
      'Entries recorded as skipped (ruled out, not fetched); `skipped_by_reason` also counts those beyond the recorded-entry cap, so its sum can be larger.',
  })
  skipped!: number;
  @ApiProperty({ description: 'Entries found and waiting to be fetched.' }) pending!: number;
  @ApiProperty({ description: 'Entries being fetched or extracted now.' }) running!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'URLs not crawled, by reason; includes those beyond the recorded-entry cap, which are counted but not listed.',
  })
  skipped_by_reason!: Record<string, number>;
  @ApiProperty({
    type: CrawlMapMethodCounts,
    description:
      'Completed pages by how they were extracted (`selectors`: a learned program, no model call; `mixed`: the program and a partial model call).',
  })
  extracted_by_method!: CrawlMapMethodCounts;
  @ApiProperty({ type: CrawlMapErrorSummary }) error_summary!: CrawlMapErrorSummary;
  @ApiProperty({ type: 'integer', description: 'Pages with at least one value not found on the page (what `ungrounded=true` lists).' })
  pages_with_ungrounded_fields!: number;
  @ApiProperty({ type: 'integer', description: 'Pages with a list known to lack items (what `list_incomplete=true` lists).' })
  pages_with_incomplete_lists!: number;
  @ApiProperty({ type: [CrawlMapEntryResponse] }) entries!: CrawlMapEntryResponse[];
}
