import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { stackedDecorators } from '@app/http';
import {
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  type ValidationOptions,
  IsObject,
  ValidateNested,
} from 'class-validator';
import { baseUrlProblem } from '../base-url';
import { CHAIN_LIMITS } from '../chain-plan';
import { API_KEY_MAX_LENGTH } from '../provider-keys.service';
import type { LlmProvider } from '../providers';
import { ModelNameProperty, ModelProviderProperty } from '../dto/model-target.properties';
import type { LlmConfigInput } from './model-types';

/** base_url: absolute http(s), no credentials, no fragment (same rules as stored provider keys). */
function IsModelBaseUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isModelBaseUrl',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && baseUrlProblem(value) === null,
        defaultMessage: (args) =>
          typeof args?.value === 'string' ? (baseUrlProblem(args.value) ?? 'must be an http or https URL') : 'must be a string',
      },
    },
    options,
  );
}

/**
 * `llm_config` of extract, crawl and analyze requests. With `api_key` the call is BYOK for this
 * request only (never stored, never logged, never echoed in errors); without it the caller's stored
 * key for `provider` is used.
 */
export class LlmConfigDto implements LlmConfigInput {
  @ModelProviderProperty('openai')
  provider!: LlmProvider;

  @ModelNameProperty('gpt-4o-mini')
  model!: string;

  @ApiPropertyOptional({
    description:
      'A provider key for this request only (BYOK); never stored or logged. Without it, your stored key for the provider is used.',
    maxLength: API_KEY_MAX_LENGTH,
    writeOnly: true,
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(API_KEY_MAX_LENGTH, { message: `must be at most ${API_KEY_MAX_LENGTH} characters` })
  api_key?: string;

  @ApiPropertyOptional({
    description: 'Custom endpoint (e.g. an Ollama server); checked against private networks when used.',
    example: 'http://ollama.internal:11434/v1',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @IsModelBaseUrl()
  base_url?: string;

  @ApiPropertyOptional({ minimum: CHAIN_LIMITS.minMaxTokens, maximum: CHAIN_LIMITS.maxMaxTokens, default: 4096 })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(CHAIN_LIMITS.minMaxTokens)
  @Max(CHAIN_LIMITS.maxMaxTokens)
  max_tokens?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: CHAIN_LIMITS.maxTemperature, default: 0 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'must be a number' })
  @Min(0)
  @Max(CHAIN_LIMITS.maxTemperature)
  temperature?: number;
}

/** `llm_config` of a request: the model override, BYOK with `api_key` (its description says for what). */
export function LlmConfigProperty(description?: string): PropertyDecorator {
  return stackedDecorators(
    ApiPropertyOptional(description === undefined ? { type: LlmConfigDto } : { type: LlmConfigDto, description }),
    IsOptional(),
    IsObject(),
    ValidateNested(),
    Type(() => LlmConfigDto),
  );
}
