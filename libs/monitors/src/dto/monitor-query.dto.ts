import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { IsRfc3339 } from '@app/http';
import { PageQuery } from '@app/jobs';
import { CHANGE_KINDS, type ChangeKind } from '../monitor.types';

export class ListMonitorsQuery extends PageQuery {}
export class MonitorRunsQuery extends PageQuery {}
export class MonitorStateQuery extends PageQuery {}

export class MonitorChangesQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only changes detected after this instant (RFC 3339).', example: '2026-11-26T10:00:00.000Z' })
  @IsOptional()
  @IsRfc3339()
  since?: string;

  @ApiPropertyOptional({ enum: CHANGE_KINDS })
  @IsOptional()
  @IsIn(CHANGE_KINDS)
  kind?: ChangeKind;

  @ApiPropertyOptional({ description: 'Only the changes of this run (`GET /monitors/{id}/runs`).' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  run_id?: string;

  @ApiPropertyOptional({ enum: ['json', 'jsonl'], default: 'json', description: '`jsonl`: one change per line (application/x-ndjson).' })
  @IsOptional()
  @IsIn(['json', 'jsonl'])
  format?: 'json' | 'jsonl';
}
