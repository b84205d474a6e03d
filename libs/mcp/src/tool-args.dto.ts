import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

/**
 * Arguments the tools take besides the REST bodies they pass on: which job, which page of results,
 * whether to follow a job. DTOs like the bodies' (class-validator for the check, @ApiProperty for the
 * words), so their input schemas come from the same mapping (libs/http dto-json-schema.ts).
 */

export const FOLLOW_DEFAULT_SECONDS = 120;
export const FOLLOW_MAX_SECONDS = 600;
export const RESULTS_PAGE_DEFAULT = 20;
export const RESULTS_PAGE_MAX = 100;

export class FollowArgs {
  @ApiPropertyOptional({
    default: false,
    description:
      'Follow the job until it ends (at most `timeout` seconds), sending progress notifications (pages done of pages known); the answer is then its final status. Its results: job_results.',
  })
  @IsOptional()
  @IsBoolean()
  wait?: boolean;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: FOLLOW_MAX_SECONDS,
    default: FOLLOW_DEFAULT_SECONDS,
    description: 'Seconds to follow with `wait`; the job goes on after it.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(FOLLOW_MAX_SECONDS)
  timeout?: number;
}

export class JobArgs {
  @ApiProperty({ description: 'The job id (`job_id` of the tool that started it).', example: '01JD0000000000000000000000' })
  @IsString()
  @Length(1, 64)
  job_id!: string;
}

export class JobStatusArgs extends FollowArgs {
  @ApiProperty({ description: 'The job id (`job_id` of the tool that started it).', example: '01JD0000000000000000000000' })
  @IsString()
  @Length(1, 64)
  job_id!: string;
}

export class JobResultsArgs {
  @ApiProperty({ description: 'The job id.', example: '01JD0000000000000000000000' })
  @IsString()
  @Length(1, 64)
  job_id!: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Results to skip (in the order pages finished).' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  offset?: number;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: RESULTS_PAGE_MAX,
    default: RESULTS_PAGE_DEFAULT,
    description: 'Results in this page at most.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(RESULTS_PAGE_MAX)
  limit?: number;
}

/** Tools without arguments. */
export class NoArgs {}
