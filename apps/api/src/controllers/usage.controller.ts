import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { IsDateOrDateTime } from '@app/http';
import { UsageService } from '@app/jobs';

export class UsageQuery {
  @ApiPropertyOptional({ example: '2026-11-01', description: 'Start (inclusive), RFC 3339 or date; default 30 days before `to`.' })
  @IsOptional()
  @IsString()
  @IsDateOrDateTime()
  from?: string;
  @ApiPropertyOptional({ example: '2026-12-01', description: 'End (exclusive), RFC 3339 or date; default now.' })
  @IsOptional()
  @IsString()
  @IsDateOrDateTime()
  to?: string;
}

@ApiTags('Usage')
@ApiBearerAuth()
@Controller('api/v1/usage')
@RequiresScope('jobs')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get()
  @ApiOperation({ summary: 'Your jobs, pages, tokens and USD: total, per job type and per UTC day' })
  report(@CurrentCaller() caller: Caller, @Query() query: UsageQuery) {
    return this.usage.report(caller, query.from, query.to);
  }
}
