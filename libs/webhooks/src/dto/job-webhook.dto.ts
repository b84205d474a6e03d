import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsObject, IsOptional, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { IsHttpUrl, OptionalHttpUrlProperty } from '@app/http';
import { WEBHOOK_EVENTS } from '../webhook-events';
import { WebhookHeaderDto } from './webhook.dto';

const EVENT_VALUES = [...WEBHOOK_EVENTS, '*'];

/** An inline, ephemeral webhook given with a job request. */
export class InlineWebhookDto {
  @ApiProperty({ example: 'https://hooks.example/gleaner' }) @IsString() @Length(1, 2048) @IsHttpUrl() url!: string;
  @ApiPropertyOptional({ maxLength: 256 }) @IsOptional() @IsString() @MaxLength(256) secret?: string;
  @ApiPropertyOptional({ enum: EVENT_VALUES, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsIn(EVENT_VALUES, { each: true, message: `each value must be one of ${EVENT_VALUES.join(', ')}` })
  events?: string[];
  @ApiPropertyOptional({ type: [WebhookHeaderDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => WebhookHeaderDto)
  headers?: WebhookHeaderDto[];
}

/** The webhook fields every job request (extract, crawl, analyze) accepts. */
export class JobWebhookFields {
  @ApiPropertyOptional({ type: InlineWebhookDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => InlineWebhookDto)
  webhook?: InlineWebhookDto;

  @ApiPropertyOptional({ description: 'A saved webhook of yours to call on this job’s events.' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  webhook_id?: string;

  @OptionalHttpUrlProperty({ description: 'Simple webhook address (all events, unsigned).', example: 'https://hooks.example/simple' })
  webhook_url?: string;
}
