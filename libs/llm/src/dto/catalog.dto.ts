import { ApiProperty } from '@nestjs/swagger';
import { LLM_PROVIDERS } from '../providers';

export class ProviderResponse {
  @ApiProperty({ enum: LLM_PROVIDERS, example: 'anthropic' }) name!: string;
  @ApiProperty({ example: false, description: 'Whether you stored a key for this provider.' }) has_key!: boolean;
  @ApiProperty({ example: false, description: 'Your setting; false when you stored nothing for this provider.' }) is_enabled!: boolean;
  @ApiProperty({ example: 'https://api.anthropic.com' }) base_url_default!: string;
  @ApiProperty({ example: true, description: 'false for ollama (a local server needs no key).' }) requires_key!: boolean;
}

export class ProviderListResponse {
  @ApiProperty({ type: [ProviderResponse] }) providers!: ProviderResponse[];
}

export class ModelResponse {
  @ApiProperty({ example: 'gpt-4o-mini' }) id!: string;
  @ApiProperty({ example: 128000, description: 'Context window in tokens.' }) context_tokens!: number;
  @ApiProperty({ example: 0.15, description: 'USD per million input tokens.' }) input_usd_per_mtok!: number;
  @ApiProperty({ example: 0.6, description: 'USD per million output tokens.' }) output_usd_per_mtok!: number;
}

export class ModelListResponse {
  @ApiProperty({ enum: LLM_PROVIDERS, example: 'openai' }) provider!: string;
  @ApiProperty({ type: [ModelResponse] }) models!: ModelResponse[];
}
