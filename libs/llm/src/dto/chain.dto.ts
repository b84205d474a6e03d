import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsNumber, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { CHAIN_DEFAULTS, CHAIN_LIMITS } from '../chain-plan';
import { LLM_PROVIDERS, type LlmProvider } from '../providers';
import { ModelNameProperty, ModelProviderProperty } from './model-target.properties';

export class ChainEntryDto {
  @ModelProviderProperty('openrouter')
  provider!: LlmProvider;

  @ModelNameProperty('openai/gpt-4o-mini')
  model!: string;

  @ApiPropertyOptional({ default: CHAIN_DEFAULTS.is_enabled, example: true })
  @IsOptional()
  @IsBoolean({ message: 'must be a boolean' })
  is_enabled?: boolean;

  @ApiPropertyOptional({
    default: CHAIN_DEFAULTS.max_tokens,
    minimum: CHAIN_LIMITS.minMaxTokens,
    maximum: CHAIN_LIMITS.maxMaxTokens,
    example: 4096,
  })
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(CHAIN_LIMITS.minMaxTokens)
  @Max(CHAIN_LIMITS.maxMaxTokens)
  max_tokens?: number;

  @ApiPropertyOptional({ default: CHAIN_DEFAULTS.temperature, minimum: 0, maximum: CHAIN_LIMITS.maxTemperature, example: 0 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'must be a number' })
  @Min(0)
  @Max(CHAIN_LIMITS.maxTemperature)
  temperature?: number;
}

export class PutChainDto {
  @ApiProperty({
    type: [ChainEntryDto],
    maxItems: CHAIN_LIMITS.maxEntries,
    description: 'Ordered: the first entry is tried first (position 0). Replaces the whole chain; [] clears it.',
  })
  @IsArray({ message: 'must be an array' })
  @ArrayMaxSize(CHAIN_LIMITS.maxEntries, { message: `must have at most ${CHAIN_LIMITS.maxEntries} entries` })
  @ValidateNested({ each: true })
  @Type(() => ChainEntryDto)
  chain!: ChainEntryDto[];
}

export class ChainEntryResponse {
  @ApiProperty({ example: '01JD0000000000000000000000' }) id!: string;
  @ApiProperty({ enum: LLM_PROVIDERS, example: 'openrouter' }) provider!: string;
  @ApiProperty({ example: 'openai/gpt-4o-mini' }) model!: string;
  @ApiProperty({ example: 0, description: '0-based order in the chain (equals the index in the array).' }) position!: number;
  @ApiProperty({ example: true }) is_enabled!: boolean;
  @ApiProperty({ example: 4096 }) max_tokens!: number;
  @ApiProperty({ example: 0 }) temperature!: number;
  @ApiProperty({ example: '2026-11-22T05:40:00.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T05:40:00.123Z' }) updated_at!: string;
}

export class ChainResponse {
  @ApiProperty({ type: [ChainEntryResponse] }) chain!: ChainEntryResponse[];
}
