import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';
import { baseUrlProblem } from '../base-url';
import { CHAIN_LIMITS } from '../chain-plan';
import { API_KEY_MAX_LENGTH } from '../provider-keys.service';
import { LLM_PROVIDERS, type LlmProvider } from '../providers';
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
  @ApiProperty({ enum: LLM_PROVIDERS, example: 'openai' })
  @IsIn(LLM_PROVIDERS, { message: `must be one of ${LLM_PROVIDERS.join(', ')}` })
  provider!: LlmProvider;

  @ApiProperty({ example: 'gpt-4o-mini', minLength: 1, maxLength: CHAIN_LIMITS.maxModelLength })
  @IsString({ message: 'must be a string' })
  @Length(1, CHAIN_LIMITS.maxModelLength, { message: `must be 1 to ${CHAIN_LIMITS.maxModelLength} characters` })
  @Matches(/\S/, { message: 'must not be blank' })
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
