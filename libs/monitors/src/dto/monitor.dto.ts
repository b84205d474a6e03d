import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ExtractionModeProperty, PaginateDto, PaginateProperty, type ExtractionMode } from '@app/extraction';
import { ExactlyOneOf, IsPrintable, JSON_BODY_LIMITS, OptionalHttpUrlProperty } from '@app/http';
import { SchemaIdProperty, SchemaProperty, SiteIdProperty } from '@app/intake';
import { LlmConfigDto, LlmConfigProperty } from '@app/llm';
import { SavedCrawlOptionsDto } from '@app/sites';
import { JobWebhookFields } from '@app/webhooks';
import { FIRST_RUN_MODES, NOTIFY_KINDS, type FirstRunMode, type NotifyKind } from '../monitor.types';
import { EVERY_PATTERN } from '../schedule';

@ExactlyOneOf('every', 'cron')
export class MonitorScheduleDto {
  @ApiPropertyOptional({
    example: '30m',
    description: 'An interval: a whole number and a unit (s, m, h, d); at least GLEANER_MONITOR_MIN_INTERVAL_S. Give this or `cron`.',
  })
  @IsOptional()
  @IsString()
  @Matches(EVERY_PATTERN, { message: 'must be a whole number and a unit: s, m, h or d (e.g. 30m)' })
  every?: string;

  @ApiPropertyOptional({ example: '0 */6 * * *', description: 'A cron expression (5 fields, or 6 with seconds). Give this or `every`.' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  cron?: string;

  @ApiPropertyOptional({ example: 'Europe/Paris', default: 'UTC', description: 'The IANA time zone of `cron`.' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  timezone?: string;
}

export class MonitorNotifyDto extends JobWebhookFields {
  @ApiPropertyOptional({
    enum: NOTIFY_KINDS,
    isArray: true,
    default: [...NOTIFY_KINDS],
    description: 'The kinds of change a `monitor.changed` event carries, and `failed` for `monitor.failed`.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(4)
  @IsIn(NOTIFY_KINDS, { each: true, message: `each value must be one of ${NOTIFY_KINDS.join(', ')}` })
  on?: NotifyKind[];
}

export class CreateMonitorDto {
  @ApiProperty({ example: 'Shop prices' }) @IsString() @Length(1, 200) @IsPrintable() name!: string;

  @OptionalHttpUrlProperty({
    example: 'https://shop.example/',
    description: 'The seed to crawl. Required unless `urls` lists the pages, or `site_id` names a saved site (its URL is the seed).',
  })
  url?: string;

  @ApiPropertyOptional({
    description:
      'A list of pages to watch instead of a seed to crawl: each run extracts every one of them on the batch engine (a `batch` job, as POST /batch/extract), following no links. Each an absolute http(s) URL (an invalid one is a 422 at `body.urls[i]`); normalised duplicates are dropped; at most GLEANER_BATCH_MAX_URLS distinct URLs. Give `url` or `urls`, not both (`site_id` may go with either: its options, fetch mode and default schema are defaults).',
    example: ['https://shop.example/p/1', 'https://shop.example/p/2'],
    minItems: 1,
    maxItems: JSON_BODY_LIMITS.maxArrayLength,
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(JSON_BODY_LIMITS.maxArrayLength)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  urls?: string[];

  @SiteIdProperty('A saved site: its URL, fetch mode, default schema and crawl options as defaults.')
  site_id?: string;

  @SchemaProperty({
    description: 'What to extract from every page (as POST /crawl takes it). Required unless `schema_id` or the site has a default schema.',
    example: { products: [{ sku: 'string', name: 'string', price: 'number' }] },
  })
  schema?: unknown;

  @SchemaIdProperty()
  schema_id?: string;

  @ApiPropertyOptional({
    type: SavedCrawlOptionsDto,
    description:
      'The crawl options of every run; absent fields come from the site, then the defaults (headers and cookies: merged with the site\'s by name, the monitor\'s win). `headers` and `cookies` are sealed at rest and shown masked; in an update the given options replace the stored ones, except `headers` and `cookies`, which are kept unless given (docs/api.md "Saved sites"). With `urls`, the options about finding pages (max_depth, max_pages, follow_pattern, follow_selector, same_domain_only, use_sitemap, extract_from_seed, include_patterns, exclude_patterns) are refused: a list is its pages.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SavedCrawlOptionsDto)
  options?: SavedCrawlOptionsDto;

  @LlmConfigProperty(
    "The model of every run. An `api_key` here is sealed at rest (AES-256-GCM under GLEANER_SECRET) and used by this monitor's runs only; without one, runs use your stored provider keys and chain.",
  )
  llm_config?: LlmConfigDto;

  @ExtractionModeProperty('`model`: a model call per changed page; `auto`: learned selector programs (docs/learned-extraction.md).')
  extraction_mode?: ExtractionMode;

  @PaginateProperty('monitor')
  paginate?: PaginateDto | null;

  @ApiProperty({ type: MonitorScheduleDto })
  @IsObject()
  @ValidateNested()
  @Type(() => MonitorScheduleDto)
  schedule!: MonitorScheduleDto;

  @ApiPropertyOptional({
    type: [String],
    example: ['products.sku'],
    description:
      "Field paths that identify a record (top-level fields: one record per page) or an item of a list (`list.field`). Default: the page's URL.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  key?: string[];

  @ApiPropertyOptional({ type: MonitorNotifyDto, description: 'Where `monitor.changed` and `monitor.failed` go.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MonitorNotifyDto)
  notify?: MonitorNotifyDto;

  @ApiPropertyOptional({ default: false, description: 'Created paused: no scheduled run until resumed (POST /run still works).' })
  @IsOptional()
  @IsBoolean()
  paused?: boolean;

  @ApiPropertyOptional({
    enum: FIRST_RUN_MODES,
    default: 'added',
    description: '`added`: the first run reports every record as added (once); `baseline`: it records them silently.',
  })
  @IsOptional()
  @IsIn(FIRST_RUN_MODES)
  first_run?: FirstRunMode;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 10,
    default: 2,
    description: 'A record is `removed` after this many consecutive runs without it (its page gone, unlinked, or without the item).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  remove_after_misses?: number;
}

/** PUT /monitors/{id}: any field of a new monitor (a partial update). */
export class UpdateMonitorDto extends PartialType(CreateMonitorDto) {}
