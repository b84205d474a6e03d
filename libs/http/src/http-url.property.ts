import { ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { IsHttpUrl } from './dto-rules';
import { stackedDecorators } from './stacked-decorators';

/** An optional absolute http(s) URL of a request (a seed, a page, a webhook address): up to 2,048 characters. */
export function OptionalHttpUrlProperty(options: ApiPropertyOptions): PropertyDecorator {
  return stackedDecorators(ApiPropertyOptional(options), IsOptional(), IsString(), Length(1, 2048), IsHttpUrl());
}
