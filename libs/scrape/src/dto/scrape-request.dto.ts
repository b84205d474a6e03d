import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { JobFetchFields, PromptProperty, SchemaIdProperty, SchemaProperty } from '@app/intake';
import { ExtractionUsageResponse } from '@app/extraction';
import { LlmConfigDto } from '@app/llm';
import type { GroundingPolicy, ProvenanceMode } from '@app/provenance';
import { GroundingProperty, ProvenanceProperty } from '@app/sites';
import { FETCH_MODES, type FetchMode } from '@app/fetch';
import { IsHttpUrl } from '@app/http';
import {
  ExcludeTagsProperty,
  FullPageScreenshotProperty,
  IncludeTagsProperty,
  OnlyMainContentProperty,
  PageFormatsProperty,
  type ScrapeFormat,
} from '@app/pages';
import {
  CONTENT_TRUNCATED_PROPERTY,
  FieldProvenanceResponse,
  ITEMS_PROPERTY,
  ItemsReportResponse,
  WARNINGS_PROPERTY,
  WarningResponse,
} from '@app/results';

/** The longest fetch deadline a request may ask for (`timeout_ms`). */
export const MAX_SCRAPE_TIMEOUT_MS = 120_000;

export class ScrapeRequestDto extends JobFetchFields {
  @ApiProperty({ example: 'https://docs.example/guide' })
  @IsString()
  @Length(1, 2048)
  @IsHttpUrl()
  url!: string;

  @PageFormatsProperty({ default: ['markdown'] })
  formats?: ScrapeFormat[];

  @OnlyMainContentProperty()
  only_main_content?: boolean;

  @IncludeTagsProperty()
  include_tags?: string[];

  @ExcludeTagsProperty()
  exclude_tags?: string[];

  @ApiPropertyOptional({ enum: FETCH_MODES, default: 'auto' }) @IsOptional() @IsIn(FETCH_MODES) fetch_mode?: FetchMode;

  @ApiPropertyOptional({
    minimum: 1000,
    maximum: MAX_SCRAPE_TIMEOUT_MS,
    description:
      "Deadline of the page's fetch in milliseconds (redirects, rendering and wait_for included); default GLEANER_FETCH_TIMEOUT_MS.",
  })
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(MAX_SCRAPE_TIMEOUT_MS)
  timeout_ms?: number;

  @FullPageScreenshotProperty()
  full_page_screenshot?: boolean;

  @SchemaProperty({
    description:
      'With the `json` format (and only with it): the structure to extract, in any form `POST /extract` takes. `json` needs it, `schema_id` or `prompt`.',
    example: { title: 'string', price: 'number' },
  })
  schema?: unknown;

  @SchemaIdProperty('With the `json` format: a saved schema (yours, public or platform) instead of `schema`.')
  schema_id?: string;

  @PromptProperty(
    'With the `json` format: told to the model beside the schema (what to pick, how to read the page). Without a schema the model first proposes one for the page from it (one more model call; `metadata.schema`).',
  )
  prompt?: string;

  @ApiPropertyOptional({
    type: LlmConfigDto,
    description: 'With the `json` format: model override; with `api_key` the call is BYOK for this request only (never stored or logged).',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LlmConfigDto)
  llm_config?: LlmConfigDto;

  /** With the `json` format: `metadata.fields` of the answer (docs/provenance.md). */
  @ProvenanceProperty()
  provenance?: ProvenanceMode;

  /** With the `json` format: what a value not on the page does. */
  @GroundingProperty()
  grounding?: GroundingPolicy;

  @ApiPropertyOptional({
    default: false,
    description: 'With the `json` format: record its prompts and model metadata (GET /jobs/{id}/debug-capture).',
  })
  @IsOptional()
  @IsBoolean()
  capture_debug?: boolean;
}

export class ScrapeLinkResponse {
  @ApiProperty({ example: 'https://docs.example/guide/intro' }) url!: string;
  @ApiProperty({ example: 'introduction', description: 'The anchor text (an image link: its alt text; a PDF link: empty).' }) text!: string;
}

export class DocumentInfoResponse {
  @ApiProperty({ type: 'integer', minimum: 0 }) pages!: number;
  @ApiProperty({ type: String, nullable: true }) author!: string | null;
  @ApiProperty({ type: String, nullable: true }) creator!: string | null;
  @ApiProperty({ type: String, nullable: true }) producer!: string | null;
  @ApiProperty({ type: String, nullable: true }) keywords!: string | null;
  @ApiProperty({ type: String, nullable: true }) created_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) modified_at!: string | null;
}

export class PageInfoResponse {
  @ApiProperty({ type: String, nullable: true }) title!: string | null;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'en' }) language!: string | null;
  @ApiProperty({ type: String, nullable: true }) canonical_url!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: '`og:*` properties, the first value of each.' })
  open_graph!: Record<string, string>;
  @ApiProperty({ type: 'array', items: {}, description: 'The parsed `application/ld+json` blocks (invalid JSON is left out).' })
  json_ld!: unknown[];
  @ApiProperty({ type: 'integer' }) status_code!: number;
  @ApiProperty({ example: 'text/html' }) content_type!: string;
  @ApiProperty({ type: DocumentInfoResponse, nullable: true, description: "A PDF's own info; null for other pages." })
  document!: DocumentInfoResponse | null;
}

export class ScrapeDataResponse {
  @ApiPropertyOptional() markdown?: string;
  @ApiPropertyOptional() text?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'null for a page that is not HTML (a PDF).' }) html?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'null for a PDF.' }) raw_html?: string | null;
  @ApiPropertyOptional({ type: [ScrapeLinkResponse] }) links?: ScrapeLinkResponse[];
  @ApiPropertyOptional({ type: PageInfoResponse }) page_info?: PageInfoResponse;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '/api/v1/jobs/01JD0000000000000000000000/screenshots/01JD0000000000000000000000-1',
    description:
      'The path to read the PNG with your key (`jobs` scope); null when none was taken (a PDF). `metadata.screenshot_url` is a link without a key.',
  })
  screenshot?: string | null;
  @ApiPropertyOptional({
    description: "The `json` format: the schema's data as the model extracted it from the page (any JSON value the schema describes).",
    example: { title: 'A Light in the Attic', price: 51.77 },
  })
  json?: unknown;
}

@ApiExtraModels(FieldProvenanceResponse)
export class ScrapeMetadataResponse {
  @ApiProperty({ enum: ['scrape'] }) method!: 'scrape';
  @ApiProperty({ enum: ['static', 'dynamic'], description: 'How the page was fetched (what `auto` chose).' }) fetch_mode!: string;
  @ApiProperty({ type: 'integer' }) status_code!: number;
  @ApiProperty({ example: 'text/html' }) content_type!: string;
  @ApiProperty() fetch_duration_ms!: number;
  @ApiProperty() convert_duration_ms!: number;
  @ApiPropertyOptional() screenshot_id?: string;
  @ApiPropertyOptional({ description: 'A link to the PNG that needs no key, valid 1 hour.' }) screenshot_url?: string;
  @ApiPropertyOptional() screenshot_expires_at?: string;
  @ApiPropertyOptional(CONTENT_TRUNCATED_PROPERTY) content_truncated?: true;
  @ApiPropertyOptional(ITEMS_PROPERTY) items?: ItemsReportResponse[];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(FieldProvenanceResponse) },
    description:
      'The `json` format with `provenance: summary` or `full`: per leaf path of `data.json` (`title`, `authors[0]`), where the value came from and whether it is on the page (docs/provenance.md).',
  })
  fields?: Record<string, FieldProvenanceResponse>;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'The `json` format: leaves of `data.json` left out of `fields` (`provenance: summary`).',
  })
  fields_omitted?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'The `json` format: values of `data.json` not found on the page.' })
  ungrounded_fields?: number;
  @ApiPropertyOptional({
    enum: ['full', 'partial'],
    description: 'The `json` format: its model call (`full`: the whole page, every field).',
  })
  model_call?: 'full' | 'partial';
  @ApiPropertyOptional({ example: 'gpt-4o-mini', description: 'The `json` format: the model that answered.' })
  model?: string;
  @ApiPropertyOptional({ example: 'openai', description: 'The `json` format: its provider.' })
  provider?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false },
    description:
      'The `json` format with a `prompt` and no schema: the JSON Schema the model proposed for the page, which `data.json` follows (docs/scrape.md "A prompt without a schema").',
  })
  schema?: Record<string, unknown>;
}

export class ScrapeResponse {
  @ApiProperty() job_id!: string;
  @ApiProperty({ description: 'The final URL, after redirects.' }) url!: string;
  @ApiProperty() fetched_at!: string;
  @ApiProperty({ type: ScrapeDataResponse, description: 'The requested formats, nothing else.' }) data!: ScrapeDataResponse;
  @ApiProperty({ type: ScrapeMetadataResponse }) metadata!: ScrapeMetadataResponse;
  @ApiPropertyOptional({
    type: ExtractionUsageResponse,
    description: "With the `json` format: the model calls' tokens and cost (a failed attempt's too), as `POST /extract` answers them.",
  })
  usage?: ExtractionUsageResponse;
  @ApiProperty(WARNINGS_PROPERTY) warnings!: WarningResponse[];
}
