import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { IsHttpUrl, IsPrintable } from '@app/http';
import { HEADER_NAME, isForbiddenHeader, WEBHOOK_EVENTS } from '../webhook-events';

function IsAllowedHeaderName(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isAllowedHeaderName',
      target: target.constructor,
      propertyName,
      options: { message: 'must not be content-type, host, content-length or a webhook-* header', ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && !isForbiddenHeader(value) },
    });
}

export class WebhookHeaderDto {
  @ApiProperty({ example: 'X-Team' })
  @IsString()
  @Matches(HEADER_NAME, { message: 'must be a valid HTTP header name' })
  @IsAllowedHeaderName()
  name!: string;

  @ApiProperty({ example: 'data' })
  @IsString()
  @MaxLength(4096)
  @Matches(/^[^\r\n\x00]*$/, { message: 'must not contain line breaks' })
  value!: string;
}

const EVENT_VALUES = [...WEBHOOK_EVENTS, '*'];

export class WebhookBodyDto {
  @ApiProperty({ example: 'orders-sink', minLength: 1, maxLength: 64 }) @IsString() @Length(1, 64) @IsPrintable() name!: string;
  @ApiProperty({ example: 'https://hooks.example/gleaner' }) @IsString() @Length(1, 2048) @IsHttpUrl() url!: string;
  @ApiProperty() @IsBoolean() is_active!: boolean;
  @ApiPropertyOptional({
    enum: EVENT_VALUES,
    isArray: true,
    example: ['job.completed', 'job.failed'],
    description: 'Empty or ["*"]: all events.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsIn(EVENT_VALUES, { each: true, message: `each value must be one of ${EVENT_VALUES.join(', ')}` })
  events?: string[];
  @ApiPropertyOptional({ type: [WebhookHeaderDto], maxItems: 10 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => WebhookHeaderDto)
  headers?: WebhookHeaderDto[];
  @ApiPropertyOptional({ maxLength: 256, description: 'HMAC-SHA256 signing secret (Standard Webhooks). Empty: unsigned. Never returned.' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  secret?: string;
}

export class WebhookResponse {
  @ApiProperty({ example: 'orders-sink' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: [String] }) events!: string[];
  @ApiProperty({ type: [WebhookHeaderDto] }) headers!: WebhookHeaderDto[];
  @ApiProperty() is_active!: boolean;
  @ApiProperty() has_secret!: boolean;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

export class WebhookListResponse {
  @ApiProperty({ type: [WebhookResponse] }) webhooks!: WebhookResponse[];
}

export const CLIENT_WEBHOOK_ID = /^[A-Za-z0-9_-]{1,64}$/;
