import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ExtractionModeProperty, type ExtractionMode } from '@app/extraction';
import { QueryInteger } from '@app/http';
import { SchemaIdProperty, SchemaProperty, SiteIdProperty } from '@app/intake';
import { LlmConfigDto, LlmConfigProperty } from '@app/llm';
import { CRAWL_CAPS } from '@app/sites';
import { JobWebhookFields } from '@app/webhooks';
import { REEXTRACT_ONLY, type ReextractOnly } from '../../crawl-input';
import { CaptureDebugProperty, MaxCostUsdProperty } from './crawl-engine.properties';

/** POST /jobs/{id}/reextract (docs/archive.md "Re-extraction"). */
export class ReextractRequestDto extends JobWebhookFields {
  @SchemaProperty({
    description:
      "What to extract from every archived page (shorthand, field list or JSON Schema). Absent with `schema_id` absent too: the source job's schema.",
    example: { name: 'string', price: 'string', sku: 'string' },
  })
  schema?: unknown;

  @SchemaIdProperty()
  schema_id?: string;

  @LlmConfigProperty('Model override; with `api_key` BYOK for this job only (never stored or logged).')
  llm_config?: LlmConfigDto;

  @ExtractionModeProperty(
    '`model`: a model call per page. `auto`: learned selector programs per template (docs/learned-extraction.md), as in a crawl.',
  )
  extraction_mode?: ExtractionMode;

  @ApiPropertyOptional({
    enum: REEXTRACT_ONLY,
    default: 'all',
    description:
      "Which of the source job's fetched pages: `all`, only those that `failed`, or only those with a value not found on the page (`ungrounded`: the crawl map's `ungrounded=true` pages, docs/provenance.md).",
  })
  @IsOptional()
  @IsIn(REEXTRACT_ONLY)
  only?: ReextractOnly;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: CRAWL_CAPS.concurrency,
    description: "Pages extracted at once (model calls in flight); default: the source job's concurrency.",
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CRAWL_CAPS.concurrency)
  concurrency?: number;

  @CaptureDebugProperty()
  capture_debug?: boolean;

  @MaxCostUsdProperty('Cost cap in USD, as a crawl’s `max_cost_usd`.')
  max_cost_usd?: number;
}

export class ReextractResponse {
  @ApiProperty() job_id!: string;
  @ApiProperty({ enum: ['pending', 'running', 'completed', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ description: 'Address of the new job (also the Location header).' }) status_url!: string;
  @ApiProperty({ description: 'The job whose archived pages are extracted again.' }) source_job_id!: string;
  @ApiProperty({ description: 'Source pages the job reads from the archive (a page whose archive is gone is skipped, `archive_missing`).' })
  page_count!: number;
}

/** GET /jobs/{id}/results/{result_id}/page. */
export class ArchivedPageQuery {
  @ApiPropertyOptional({
    enum: ['raw', 'text'],
    default: 'raw',
    description: '`raw`: the body as fetched, with its original content type, as an attachment. `text`: the text the model saw (markdown).',
  })
  @IsOptional()
  @IsIn(['raw', 'text'])
  view?: 'raw' | 'text';
}

/** POST /warc-extract: the schema and options by saved ids and query parameters (the body is the WARC file). */
export class WarcExtractQuery {
  @SchemaIdProperty('The saved schema to extract. Required unless `site_id` names a site with a default schema.')
  schema_id?: string;

  @SiteIdProperty('A saved site whose default schema and crawl options (concurrency, max_cost_usd) apply.')
  site_id?: string;

  @ExtractionModeProperty('As in a crawl: `model`, or `auto` (learned selector programs per template).')
  extraction_mode?: ExtractionMode;

  @ApiPropertyOptional({ description: 'A saved webhook of yours to call on the job’s events.' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  webhook_id?: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: CRAWL_CAPS.concurrency,
    description: 'Pages extracted at once; default: the site’s, else the crawl default.',
  })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(CRAWL_CAPS.concurrency)
  concurrency?: number;
}

export class WarcExtractResponse {
  @ApiProperty() job_id!: string;
  @ApiProperty({ enum: ['pending', 'running', 'completed', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ description: 'Address of the job resource (also the Location header).' }) status_url!: string;
  @ApiProperty({ description: 'Bytes of the WARC file received and stored.' }) bytes!: number;
}
