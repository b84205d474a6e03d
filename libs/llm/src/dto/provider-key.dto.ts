import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsBoolean, IsIn } from 'class-validator';
import { STORED_BASE_URL_SCHEMA } from '../base-url';
import { LLM_PROVIDERS, type LlmProvider } from '../providers';

/** A provider key: printable ASCII without spaces, optionally padded with blanks (trimmed before it is stored). */
export const PROVIDER_API_KEY_PATTERN = /^[ \t\r\n]*[\x21-\x7e]*[ \t\r\n]*$/;

const PROVIDER_MESSAGE = `must be one of ${LLM_PROVIDERS.join(', ')}`;

export class PutProviderKeyDto {
  @ApiProperty({ enum: LLM_PROVIDERS, example: 'openai' })
  @IsIn(LLM_PROVIDERS, { message: PROVIDER_MESSAGE })
  provider!: LlmProvider;

  @ApiProperty({ example: true, description: 'Whether the provider may be used.' })
  @IsBoolean({ message: 'must be a boolean' })
  is_enabled!: boolean;

  // Checked by the service, not here: class-validator errors echo the value, and a key must never be echoed.
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    writeOnly: true,
    maxLength: 4096,
    pattern: PROVIDER_API_KEY_PATTERN.source,
    example: 'sk-proj-...',
    description: 'The provider key (printable ASCII), encrypted at rest and never returned. Absent, null or empty: the stored key is kept.',
  })
  @Allow()
  api_key?: unknown;

  // Checked by the service too (a URL may hold credentials, which class-validator errors would echo); the
  // schema states that rule: empty, or the URL pattern without a fragment (libs/llm base-url.ts).
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    ...STORED_BASE_URL_SCHEMA,
    example: 'http://ollama.internal:11434',
    description:
      'Custom endpoint (http or https, a host, no credentials, no fragment; RFC 3986 characters, percent-encode the rest). Absent: kept; null or empty: reset to the provider default.',
  })
  @Allow()
  base_url?: unknown;
}

export class ProviderKeyResponse {
  @ApiProperty({ example: '01JD0000000000000000000000' }) id!: string;
  @ApiProperty({ enum: LLM_PROVIDERS, example: 'openai' }) provider!: string;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Custom endpoint; null means the provider default.' })
  base_url!: string | null;
  @ApiProperty({ example: true, description: 'Whether a key is stored (the key itself is never returned).' }) has_key!: boolean;
  @ApiProperty({ example: true }) is_enabled!: boolean;
  @ApiProperty({ example: '2026-11-22T05:40:00.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T05:40:00.123Z' }) updated_at!: string;
}

export class ProviderKeyListResponse {
  @ApiProperty({ type: [ProviderKeyResponse] }) keys!: ProviderKeyResponse[];
}
