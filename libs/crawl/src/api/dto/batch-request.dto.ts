import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, IsOptional, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { ExtractionModeProperty, PaginateDto, PaginateProperty, type ExtractionMode } from '@app/extraction';
import { JSON_BODY_LIMITS } from '@app/http';
import { PromptProperty, SchemaIdProperty, SchemaProperty, SiteIdProperty } from '@app/intake';
import {
  ExcludeTagsProperty,
  FullPageScreenshotProperty,
  IncludeTagsProperty,
  OnlyMainContentProperty,
  PageFormatsProperty,
  type ScrapeFormat,
} from '@app/pages';
import { LlmConfigDto, LlmConfigProperty } from '@app/llm';
import { CrawlOptionsDto } from '@app/sites';
import { JobWebhookFields } from '@app/webhooks';
import { CaptureDebugProperty, MaxCostUsdProperty } from './crawl-engine.properties';

/**
 * The crawl options that mean something for a list (docs/crawl.md "Batches"): the crawl's own, minus
 * those about finding URLs (a batch follows no links and reads no sitemaps; its pages are its list).
 */
export class BatchOptionsDto extends OmitType(CrawlOptionsDto, [
  'follow_pattern',
  'follow_selector',
  'max_depth',
  'max_pages',
  'same_domain_only',
  'use_sitemap',
  'extract_from_seed',
  'include_patterns',
  'exclude_patterns',
] as const) {}

export class BatchRequestDto extends JobWebhookFields {
  @ApiProperty({
    description:
      'The URLs to extract, each an absolute http(s) URL (an invalid one is a 422 at its index, `body.urls[i]`). Normalised duplicates are removed and reported in the answer. Longer lists: a text/plain or application/x-ndjson body (see the operation).',
    example: ['https://shop.example/p/1', 'https://shop.example/p/2'],
    minItems: 1,
    maxItems: JSON_BODY_LIMITS.maxArrayLength,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(JSON_BODY_LIMITS.maxArrayLength)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  urls!: string[];

  @SchemaProperty({
    description:
      'What to extract from every page (shorthand, field list or JSON Schema). Required unless `schema_id`, `formats` without `json`, or the site has a default schema.',
    example: { name: 'string', price: 'string' },
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

  @SiteIdProperty("A saved site: its fetch mode, default schema and crawl options as defaults under the request's own.")
  site_id?: string;

  @ApiPropertyOptional({
    type: BatchOptionsDto,
    description: 'Politeness and fetching; absent fields come from the site, then the crawl defaults.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => BatchOptionsDto)
  options?: BatchOptionsDto;

  @LlmConfigProperty('Model override; with `api_key` BYOK for this batch only (never stored or logged).')
  llm_config?: LlmConfigDto;

  @ExtractionModeProperty(
    '`model`: a model call per page. `auto`: learned selector programs per template, as in a crawl (docs/learned-extraction.md).',
  )
  extraction_mode?: ExtractionMode;

  @CaptureDebugProperty()
  capture_debug?: boolean;

  @PaginateProperty('batch')
  paginate?: PaginateDto;

  @MaxCostUsdProperty('Cost cap in USD (as `options.max_cost_usd`; giving both with different values is a 422).')
  max_cost_usd?: number;
}

/** Query parameters of a list body (text/plain, application/x-ndjson): the schema and options by saved ids. */
export class BatchListQuery {
  @SchemaIdProperty(
    'The saved schema to extract (list bodies: required unless the site has a default schema; a JSON body: fills its `schema_id` when it gives none).',
  )
  schema_id?: string;

  @SiteIdProperty(
    'A saved site whose crawl options, fetch mode and default schema apply (a JSON body: fills its `site_id` when it gives none).',
  )
  site_id?: string;

  @ExtractionModeProperty('As `extraction_mode` in the JSON body (a JSON body: fills its own when it gives none).')
  extraction_mode?: ExtractionMode;

  @ApiPropertyOptional({
    description: 'A saved webhook of yours to call on the job’s events (a JSON body: fills its `webhook_id` when it gives none).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  webhook_id?: string;
}

export class BatchDuplicate {
  @ApiProperty({
    description:
      'Index of the duplicate in the list as sent (JSON: `urls[i]`; list bodies: the 0-based URL count, blank and comment lines not counted).',
  })
  index!: number;
  @ApiProperty({ description: 'The URL as sent.' }) url!: string;
  @ApiProperty({ description: 'Index of the first URL it is the same page as (after normalisation).' }) first_index!: number;
}

export class BatchResponse {
  @ApiProperty() job_id!: string;
  @ApiProperty({ enum: ['pending', 'running', 'completed', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ description: 'Address of the job resource (also the Location header).' }) status_url!: string;
  @ApiProperty({ description: 'Distinct URLs the batch extracts (one page each).' }) url_count!: number;
  @ApiProperty({ description: 'URLs dropped as normalised duplicates of an earlier one.' }) duplicate_count!: number;
  @ApiProperty({ type: [BatchDuplicate], description: 'The duplicates (the first 1,000).' }) duplicates!: BatchDuplicate[];
}
