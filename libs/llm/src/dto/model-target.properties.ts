import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches } from 'class-validator';
import { stackedDecorators } from '@app/http';
import { CHAIN_LIMITS } from '../chain-plan';
import { LLM_PROVIDERS, type LlmProvider } from '../providers';

/** `provider` of a model target (a chain entry, a request's `llm_config`): one Gleaner calls. */
export function ModelProviderProperty(example: LlmProvider): PropertyDecorator {
  return stackedDecorators(
    ApiProperty({ enum: LLM_PROVIDERS, example }),
    IsIn(LLM_PROVIDERS, { message: `must be one of ${LLM_PROVIDERS.join(', ')}` }),
  );
}

/** `model` of a model target: the provider's name for it, not blank. */
export function ModelNameProperty(example: string): PropertyDecorator {
  return stackedDecorators(
    ApiProperty({ example, minLength: 1, maxLength: CHAIN_LIMITS.maxModelLength }),
    IsString({ message: 'must be a string' }),
    Length(1, CHAIN_LIMITS.maxModelLength, { message: `must be 1 to ${CHAIN_LIMITS.maxModelLength} characters` }),
    Matches(/\S/, { message: 'must not be blank' }),
  );
}
