import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { JobsService } from '@app/jobs';

export class CreateTestJobDto {
  @Type(() => Number) @IsInt() @Min(0) @Max(10_000) steps!: number;
  @Type(() => Number) @IsInt() @Min(0) @Max(60_000) step_ms!: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) fail_at?: number;
  @IsOptional() @IsString() fail_category?: string;
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) flaky_at?: number;
  @IsOptional() @IsString() url?: string;
}

/** Exists only with GLEANER_ENABLE_TEST_JOBS=true: drives the job machinery in tests. */
@ApiExcludeController()
@Controller('api/v1/test-jobs')
@RequiresScope('jobs')
export class TestJobsController {
  constructor(private readonly jobs: JobsService) {}

  @Post()
  @HttpCode(201)
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateTestJobDto, @Req() request: FastifyRequest) {
    const { url, ...input } = dto;
    return this.jobs.create(caller, { type: 'test', url: url ?? null, input: { ...input }, requestId: String(request.id) });
  }
}
