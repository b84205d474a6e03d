import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { JobIntakeService } from '@app/intake';
import { TEST_JOB_TYPE } from '@app/jobs';
import { JobWebhookFields } from '@app/webhooks';

export class CreateTestJobDto extends JobWebhookFields {
  @Type(() => Number) @IsInt() @Min(0) @Max(10_000) steps!: number;
  @Type(() => Number) @IsInt() @Min(0) @Max(60_000) step_ms!: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) fail_at?: number;
  @IsOptional() @IsString() fail_category?: string;
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) flaky_at?: number;
  @IsOptional() @IsString() url?: string;
  /** Step i records results[i] verbatim (see TestJobHandler). */
  @IsOptional() @IsArray() results?: Record<string, unknown>[];
  @IsOptional() @IsBoolean() capture_debug?: boolean;
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) hold_at?: number;
  @IsOptional() @IsString() gate_url?: string;
}

/** Mounted only by the test apps (test/test-app): drives the job machinery in tests. */
@ApiExcludeController()
@Controller('api/v1/test-jobs')
@RequiresScope('jobs')
export class TestJobsController {
  constructor(private readonly intake: JobIntakeService) {}

  /** Throws an unexpected error: proves 500s carry an error id that is in the logs, and no stack. */
  @Get('boom')
  boom(): never {
    throw new Error('kaboom: internal detail that must not reach the client');
  }

  @Post()
  @HttpCode(201)
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateTestJobDto, @Req() request: FastifyRequest) {
    const { url, webhook, webhook_id, webhook_url, capture_debug, ...input } = dto;
    return this.intake.submit(caller, {
      type: TEST_JOB_TYPE,
      url: url ?? null,
      input: () => input,
      captureDebug: capture_debug ?? false,
      requestId: String(request.id),
      webhooks: { webhook, webhook_id, webhook_url },
      requireModel: false,
    });
  }
}
