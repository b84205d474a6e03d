import Anthropic from '@anthropic-ai/sdk';
import { ModelCallError } from './model-errors';
import type { ModelRequest, ModelTarget, TokenUsage } from './model-types';
import { nonNegative, type ProtocolCall, type ProtocolReply } from './openai-protocol';

export const ANTHROPIC_TOOL_NAME = 'extract';

/**
 * The messages body: structured output through one forced tool whose input schema is the
 * extraction schema. No temperature: the Messages API deprecated it (SDK 1.12 no longer has the
 * field), so a chain entry's temperature does not apply to Anthropic models.
 */
export function anthropicBody(target: ModelTarget, request: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: target.model,
    max_tokens: request.maxTokens ?? target.maxTokens,
    system: request.system,
    messages: [{ role: 'user', content: request.user }],
    tools: [
      {
        name: ANTHROPIC_TOOL_NAME,
        description: 'Record the data extracted from the page, exactly in this shape.',
        input_schema: request.schema as Anthropic.Tool.InputSchema,
      },
    ],
    tool_choice: { type: 'tool', name: ANTHROPIC_TOOL_NAME },
  };
}

/** One message with the anthropic SDK. */
export async function callAnthropic(call: ProtocolCall): Promise<ProtocolReply> {
  const client = new Anthropic({
    apiKey: call.target.apiKey ?? null,
    baseURL: call.endpoint,
    maxRetries: 0,
    timeout: call.timeoutMs + 1_000,
    fetch: call.fetch,
    logLevel: 'off',
    openTelemetry: false,
  });
  const message = await client.messages.create(anthropicBody(call.target, call.request), {
    signal: call.signal,
    maxRetries: 0,
    timeout: call.timeoutMs + 1_000,
  });
  const u = message.usage as (Anthropic.Usage & Record<string, unknown>) | undefined;
  // Cached prompt tokens are billed input too.
  const usage: TokenUsage = {
    inputTokens: nonNegative(u?.input_tokens) + nonNegative(u?.cache_creation_input_tokens) + nonNegative(u?.cache_read_input_tokens),
    outputTokens: nonNegative(u?.output_tokens),
  };
  if (!Array.isArray(message.content)) {
    throw new ModelCallError('llm_provider_error', `anthropic ${call.target.model}: malformed reply (no content)`, { usage });
  }
  if (message.stop_reason === 'max_tokens') {
    throw new ModelCallError('llm_truncation', `anthropic ${call.target.model}: the reply was cut at max_tokens`, { usage });
  }
  const tool = message.content.find((block) => block.type === 'tool_use' && block.name === ANTHROPIC_TOOL_NAME) as
    Anthropic.ToolUseBlock | undefined;
  if (tool) return { text: JSON.stringify(tool.input), json: tool.input, finishReason: 'stop', usage, providerCostUsd: null };
  // No tool call (should not happen with a forced tool): hand over the text for the caller's parser.
  const text = message.content
    .filter((block): block is Anthropic.TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('');
  return { text, finishReason: 'other', usage, providerCostUsd: null };
}
