import { ApiProperty } from '@nestjs/swagger';
import { PaginateDto } from '@app/extraction';
import { SavedCrawlOptionsView } from '@app/sites';
import { CHANGE_KINDS, FIRST_RUN_MODES, NOTIFY_KINDS, RUN_STATUSES, RUN_TRIGGERS } from '../monitor.types';

const INT = { type: 'integer', minimum: 0 } as const;

export class MonitorRunCountsResponse {
  @ApiProperty({ ...INT, description: 'Records (or keyed items) the same as last time.' }) unchanged!: number;
  @ApiProperty(INT) changed!: number;
  @ApiProperty(INT) added!: number;
  @ApiProperty({ ...INT, description: 'Records gone for `remove_after_misses` runs in a row.' }) removed!: number;
  @ApiProperty({ ...INT, description: 'Pages whose fetch or extraction failed (their records are kept).' }) failed!: number;
  @ApiProperty({ ...INT, description: 'Pages requested.' }) pages_fetched!: number;
  @ApiProperty({ ...INT, description: 'Pages answered 304 Not Modified (no body, no model call).' }) not_modified!: number;
  @ApiProperty({ ...INT, description: "Pages whose normalised text hash equals last run's (no model call)." }) skipped_by_hash!: number;
  @ApiProperty({ ...INT, description: "Pages a sitemap's lastmod showed unchanged (not fetched)." }) skipped_by_lastmod!: number;
  @ApiProperty(INT) model_calls!: number;
  @ApiProperty(INT) tokens_input!: number;
  @ApiProperty(INT) tokens_output!: number;
  @ApiProperty({ type: 'number', minimum: 0 }) cost_usd!: number;
}

export class MonitorRunResponse {
  @ApiProperty({ example: '01JD0000000000000000000000:2026-11-26T10:00:00.000Z' }) id!: string;
  @ApiProperty() monitor_id!: string;
  @ApiProperty({ enum: RUN_TRIGGERS }) trigger!: string;
  @ApiProperty({ description: 'The slot this run is for (the time it was asked for, for a manual run).' }) due_at!: string;
  @ApiProperty({ enum: RUN_STATUSES, description: '`skipped`: the previous run was still going at this slot.' }) status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The job of the run (a crawl, or a batch for a list monitor), carrying `monitor_id` in its input.',
  })
  job_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: MonitorRunCountsResponse }) counts!: MonitorRunCountsResponse;
  @ApiProperty() created_at!: string;
  @ApiProperty({ type: String, nullable: true }) finished_at!: string | null;
}

export class MonitorRunListResponse {
  @ApiProperty({ type: [MonitorRunResponse] }) runs!: MonitorRunResponse[];
  @ApiProperty(INT) total!: number;
}

export class MonitorScheduleResponse {
  @ApiProperty({ required: false, example: '30m' }) every?: string;
  @ApiProperty({ required: false, example: '0 */6 * * *' }) cron?: string;
  @ApiProperty({ required: false, example: 'Europe/Paris' }) timezone?: string;
}

export class MonitorNotifyResponse {
  @ApiProperty({ type: [String], description: 'Targets: `saved:<webhook id>`, `inline` or `url`.' }) targets!: string[];
  @ApiProperty({ enum: NOTIFY_KINDS, isArray: true }) on!: string[];
}

/** A monitor as GET /monitors lists it: a list monitor's URLs are left out (`url_count`). */
export class MonitorListItemResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The seed crawled (null for a list monitor, or with a site whose URL is the seed).',
  })
  url!: string | null;
  @ApiProperty({ type: 'integer', minimum: 1, nullable: true, description: 'How many pages a list monitor watches (null for a crawl).' })
  url_count!: number | null;
  @ApiProperty({ type: String, nullable: true }) site_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) schema_id!: string | null;
  @ApiProperty({ nullable: true, description: 'The inline schema as given (null with schema_id or the site default).' }) schema!: unknown;
  @ApiProperty({ type: SavedCrawlOptionsView }) options!: SavedCrawlOptionsView;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The model settings, never the key: `has_key` says whether one is sealed for this monitor.',
  })
  llm_config!: Record<string, unknown> | null;
  @ApiProperty({ enum: ['model', 'auto'] }) extraction_mode!: string;
  @ApiProperty({
    type: PaginateDto,
    nullable: true,
    description:
      'Each page\'s list read over its "next" pages (`max_pages` as stored, its default filled in); null: none (docs/monitors.md "Paginated lists").',
  })
  paginate!: PaginateDto | null;
  @ApiProperty({ type: MonitorScheduleResponse }) schedule!: MonitorScheduleResponse;
  @ApiProperty({ type: [String] }) key!: string[];
  @ApiProperty({ type: MonitorNotifyResponse, nullable: true }) notify!: MonitorNotifyResponse | null;
  @ApiProperty({ enum: FIRST_RUN_MODES }) first_run!: string;
  @ApiProperty({ type: 'integer' }) remove_after_misses!: number;
  @ApiProperty() paused!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'When the next scheduled run starts (null while paused).' }) next_run_at!:
    string | null;
  @ApiProperty({ type: MonitorRunResponse, nullable: true }) last_run!: MonitorRunResponse | null;
  @ApiProperty(INT) runs_total!: number;
  @ApiProperty({ ...INT, description: 'Failed runs in a row (0 after a run that completed).' }) consecutive_failures!: number;
  @ApiProperty(INT) records!: number;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

/** A monitor: its settings, its list of pages (a list monitor), next run, last run and counts. */
export class MonitorResponse extends MonitorListItemResponse {
  @ApiProperty({
    type: [String],
    nullable: true,
    description: "A list monitor's pages, canonical and distinct (normalised duplicates dropped), in the order given; null for a crawl.",
  })
  urls!: string[] | null;
}

export class MonitorListResponse {
  @ApiProperty({ type: [MonitorListItemResponse] }) monitors!: MonitorListItemResponse[];
  @ApiProperty(INT) total!: number;
}

export class MonitorRunStartedResponse {
  @ApiProperty({ type: MonitorRunResponse }) run!: MonitorRunResponse;
  @ApiProperty({ description: 'The job of the run.' }) job_id!: string;
  @ApiProperty({ enum: ['crawl', 'batch'], description: '`batch` for a list monitor (`urls`), else `crawl`.' }) job_type!: string;
  @ApiProperty() status_url!: string;
}

export class FieldChangeResponse {
  @ApiProperty({ example: 'price' }) path!: string;
  @ApiProperty({ nullable: true, description: 'Any JSON value.' }) before!: unknown;
  @ApiProperty({ nullable: true, description: 'Any JSON value.' }) after!: unknown;
}

export class MonitorChangeResponse {
  @ApiProperty() id!: string;
  @ApiProperty() run_id!: string;
  @ApiProperty() detected_at!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: CHANGE_KINDS }) kind!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { sku: 'A1' }, description: 'The key fields, or `{url}`.' })
  key!: Record<string, unknown>;
  @ApiProperty({ type: [FieldChangeResponse] }) fields!: FieldChangeResponse[];
}

export class MonitorChangeListResponse {
  @ApiProperty({ type: [MonitorChangeResponse] }) changes!: MonitorChangeResponse[];
  @ApiProperty(INT) total!: number;
}

export class MonitorStateItemResponse {
  @ApiProperty({ type: 'object', additionalProperties: true }) key!: Record<string, unknown>;
  @ApiProperty() url!: string;
  @ApiProperty({ nullable: true, description: 'The current record (any JSON value).' }) record!: unknown;
  @ApiProperty({ ...INT, description: 'Runs in a row without this record so far.' }) misses!: number;
  @ApiProperty() first_seen_at!: string;
  @ApiProperty() updated_at!: string;
}

export class MonitorStateResponse {
  @ApiProperty({ type: [MonitorStateItemResponse] }) items!: MonitorStateItemResponse[];
  @ApiProperty(INT) total!: number;
}
