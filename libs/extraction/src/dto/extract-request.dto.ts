import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { LlmConfigDto, LlmConfigProperty } from '@app/llm';
import { ExtractionModeProperty, type ExtractionMode } from '../extraction-mode';
import { EXTRACT_ARCHIVE_DEFAULT } from '../extract-archive';
import { AuthProfileProperty, FETCH_MODES, ProxyProperty, type FetchMode } from '@app/fetch';
import { OptionalHttpUrlProperty } from '@app/http';
import { GroundingProperty, ProvenanceProperty } from '@app/sites';
import type { FieldProvenance, GroundingPolicy, ProvenanceMode } from '@app/provenance';
import {
  CONTENT_TRUNCATED_PROPERTY,
  FieldProvenanceResponse,
  ITEMS_PROPERTY,
  ItemsReportResponse,
  WARNINGS_PROPERTY,
  WarningResponse,
} from '@app/results';
import { ApiExtraModels, getSchemaPath } from '@nestjs/swagger';
import { PaginateDto, PaginationReportResponse } from './paginate.dto';
import { JobFetchFields, PromptProperty, SchemaIdProperty, SchemaProperty, SiteIdProperty } from '@app/intake';

export class ExtractRequestDto extends JobFetchFields {
  @OptionalHttpUrlProperty({ example: 'https://quotes.example/page/1/', description: 'Required unless `site_id` names a saved site.' })
  url?: string;

  @SchemaProperty({
    description:
      'The structure to extract: shorthand, field list or JSON Schema, as JSON or as a JSON/YAML string. Required unless `schema_id`, the site has a default schema, or `prompt` is given (then the model proposes the schema: docs/scrape.md "A prompt without a schema").',
    example: { quotes: [{ text: 'string', author: 'string', tags: ['string'] }] },
  })
  schema?: unknown;

  @SchemaIdProperty()
  schema_id?: string;
  @PromptProperty(
    "What to extract, in words: told to the model beside the schema. Without a schema (given, saved or the site's), the model first proposes one for the page from the prompt (one more model call), the page is extracted with it, and `metadata.schema` is that schema; `extraction_mode: auto` then is a 422.",
  )
  prompt?: string;
  @SiteIdProperty(
    "A saved site: its URL, fetch mode, default schema as defaults; its headers and cookies go under the request's own (name by name, the request's win), to its host only: a `url` on another host is a 422 at `body.url`.",
  )
  site_id?: string;
  @ApiPropertyOptional({ enum: FETCH_MODES, default: 'auto' }) @IsOptional() @IsIn(FETCH_MODES) fetch_mode?: FetchMode;

  @LlmConfigProperty('Model override; with `api_key` the call is BYOK for this request only (never stored or logged).')
  llm_config?: LlmConfigDto;

  @ApiPropertyOptional({ default: false, description: 'Record prompts and model metadata (GET /jobs/{id}/debug-capture).' })
  @IsOptional()
  @IsBoolean()
  capture_debug?: boolean;

  @ExtractionModeProperty(
    "`model`: the model extracts the page. `auto`: when the page's template of the site has a selector program learned for the same schema (by your crawls or extracts, docs/learned-extraction.md), the program extracts it without a model call once it has agreed with the model on `verifyPages` of your extracts; until then, and for spot checks and pages the program fails on, the model extracts (and the page helps learn and verify). `metadata.method` says which.",
  )
  extraction_mode?: ExtractionMode;

  @ApiPropertyOptional({ description: 'Cost cap in USD for this job; over it the job fails with budget_exceeded.', example: 0.05 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(10_000)
  max_cost_usd?: number;

  /** The site's saved `crawl_options.provenance` applies when absent, then the default. */
  @ProvenanceProperty()
  provenance?: ProvenanceMode;

  /** The site's saved `crawl_options.grounding` applies when absent, then the default. */
  @GroundingProperty()
  grounding?: GroundingPolicy;

  @ApiPropertyOptional({
    default: EXTRACT_ARCHIVE_DEFAULT,
    description:
      "Keep the fetched page in the archive for GLEANER_ARCHIVE_TTL_DAYS, as a crawl keeps its pages: read it back (GET /jobs/{id}/results/{result_id}/page), extract it again without fetching (POST /jobs/{id}/reextract), export it as WARC (GET /jobs/{id}/warc). When absent: the saved site's `crawl_options.archive` (with `site_id`), else `false`: an extract is one page, cheap to fetch again, and keeping it costs the compressed body once per distinct page per tenant plus a few store writes before the answer (docs/archive.md).",
  })
  @IsOptional()
  @IsBoolean()
  archive?: boolean;

  @ApiPropertyOptional({
    type: PaginateDto,
    description:
      'Follow the page\'s "next" link and extract the pages after it into one answer (docs/long-lists.md "Pagination"): the single-job form of a crawl\'s `follow_selector`. Needs a schema with a list of objects (the answer itself, or a top-level field; a 422 at `body.paginate` otherwise, and with a `prompt` and no schema). Every page, the first included, is fetched as a crawl fetches its pages: only when robots.txt allows it (its Crawl-delay applied), under the host\'s politeness slot. Each list gathers its items from every page in order (an item equal to one an earlier page gave is dropped), other fields come from the first page, usage adds up; `metadata.pagination` says which items came from which page and why the pages stopped.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PaginateDto)
  paginate?: PaginateDto;
}

export class AnalyzeRequestDto {
  @OptionalHttpUrlProperty({ example: 'https://quotes.example/', description: 'Required unless `site_id` names a saved site.' })
  url?: string;
  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0, description: '0 = this page; 1 = also a sample of the pages it links to.' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1)
  depth?: number;
  @ApiPropertyOptional({ enum: FETCH_MODES, default: 'auto' }) @IsOptional() @IsIn(FETCH_MODES) fetch_mode?: FetchMode;
  @ApiPropertyOptional({ default: true, description: 'Capture prompts and model metadata (default on for analyze).' })
  @IsOptional()
  @IsBoolean()
  debug?: boolean;
  /** The page (and its linked pages) fetched with the profile's session (docs/auth-profiles.md). */
  @AuthProfileProperty()
  auth_profile?: string;

  @SiteIdProperty(
    'A saved site: its URL and fetch mode as defaults; its headers and cookies go with the fetches, to its host only: a `url` on another host is a 422 at `body.url`.',
  )
  site_id?: string;
  @LlmConfigProperty()
  llm_config?: LlmConfigDto;
  /** The page and its linked pages through this pool; absent: the saved site's (docs/proxies.md). */
  @ProxyProperty()
  proxy?: string;
}

@ApiExtraModels(FieldProvenanceResponse)
export class ExtractionMetadataResponse {
  @ApiProperty({ example: 'gpt-4o-mini', type: 'string', nullable: true, description: '`null` when `method` is `selectors`.' })
  model!: string | null;
  @ApiProperty({ example: 'openai', type: 'string', nullable: true, description: '`null` when `method` is `selectors`.' })
  provider!: string | null;
  @ApiProperty() fetch_duration_ms!: number;
  @ApiProperty() extract_duration_ms!: number;
  @ApiProperty({
    enum: ['model', 'selectors', 'mixed'],
    description:
      '`selectors`: a learned program extracted the page without a model call (`extraction_mode: auto`); `mixed`: the program ' +
      'filled some fields and a partial model call the others (`model_fields`).',
  })
  method!: 'model' | 'selectors' | 'mixed';
  @ApiPropertyOptional({
    description:
      'The learned program that extracted the page (`selectors`), or that was compared with the model on it (a verification or check page).',
  })
  program_id?: string;
  @ApiPropertyOptional({ description: "The page's template of the site (`extraction_mode: auto`)." })
  template_id?: string;
  @ApiPropertyOptional({ type: [String], description: '`mixed`: the fields the model filled.', example: ['author'] })
  model_fields?: string[];
  @ApiPropertyOptional({
    enum: ['full', 'partial'],
    description:
      '`extraction_mode: auto`, when the model was called: `full` (the whole page, every field) or `partial` (some fields, or the ' +
      "page's text around where the program found their values); `usage` is that call's.",
  })
  model_call?: 'full' | 'partial';
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false },
    description:
      'A `prompt` without a schema: the JSON Schema the model proposed for the page, which `data` follows (give it as `schema` to extract other pages alike; docs/scrape.md "A prompt without a schema").',
  })
  schema?: Record<string, unknown>;
  @ApiPropertyOptional(CONTENT_TRUNCATED_PROPERTY) content_truncated?: true;
  @ApiPropertyOptional(ITEMS_PROPERTY) items?: ItemsReportResponse[];
  @ApiPropertyOptional({
    type: PaginationReportResponse,
    description:
      'With `paginate`: the pages the answer was gathered from and why the reading stopped (docs/long-lists.md "Pagination"). `items` then counts over all pages: `complete` is `true` only when every page\'s list was and the last page had no next link.',
  })
  pagination?: PaginationReportResponse;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(FieldProvenanceResponse) },
    description:
      'Per leaf path of `data` (`title`, `authors[0]`, `variants[1].sku`): where the value came from and whether it is on the page ' +
      '(`provenance: summary` or `full`; docs/provenance.md).',
  })
  fields?: Record<string, FieldProvenance>;
  @ApiPropertyOptional({ type: 'integer', description: 'Leaves past the listing limit, not in `fields` (docs/provenance.md "Limits").' })
  fields_omitted?: number;
  @ApiProperty({ type: 'integer', description: 'Values of `data` not found on the page (before the grounding policy).' })
  ungrounded_fields!: number;
}

export class ExtractionUsageResponse {
  @ApiProperty() input_tokens!: number;
  @ApiProperty() output_tokens!: number;
  @ApiProperty() cost_usd!: number;
  @ApiProperty() llm_cost_usd!: number;
  @ApiProperty() is_byok!: boolean;
}

export class ExtractionResponse {
  @ApiProperty() job_id!: string;
  @ApiProperty() url!: string;
  @ApiProperty() fetched_at!: string;
  @ApiProperty({ description: 'The extracted data, shaped by the schema.' }) data!: unknown;
  @ApiProperty({ type: ExtractionMetadataResponse }) metadata!: ExtractionMetadataResponse;
  @ApiProperty({ type: ExtractionUsageResponse }) usage!: ExtractionUsageResponse;
  @ApiProperty(WARNINGS_PROPERTY) warnings!: WarningResponse[];
}
