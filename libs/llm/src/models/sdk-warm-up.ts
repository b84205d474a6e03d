import { callAnthropic } from './anthropic-protocol';
import { callOpenAiCompatible, type ProtocolCall } from './openai-protocol';
import type { ModelRequest, ModelTarget } from './model-types';

/** A canned answer of each protocol, served in process: nothing leaves the process. */
const CANNED: Record<'openai' | 'anthropic', unknown> = {
  openai: {
    id: 'warm-up',
    object: 'chat.completion',
    created: 0,
    model: 'warm-up',
    choices: [{ index: 0, message: { role: 'assistant', content: '{}' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  },
  anthropic: {
    id: 'warm-up',
    type: 'message',
    role: 'assistant',
    model: 'warm-up',
    content: [{ type: 'tool_use', id: 'warm-up', name: 'extract', input: {} }],
    stop_reason: 'tool_use',
    usage: { input_tokens: 1, output_tokens: 1 },
  },
};

const REQUEST: ModelRequest = { system: 'warm-up', user: 'warm-up', schema: { type: 'object', properties: {} } };

/**
 * Runs each provider SDK once against a canned answer served in process, so that the first real model
 * call of the process does not pay the SDKs' first use (~100 ms on the development machine: the first
 * page of the first crawl after a start waited that long for it). No request leaves the process.
 */
export async function warmUpModelSdks(): Promise<void> {
  for (const provider of ['openai', 'anthropic'] as const) {
    const target: ModelTarget = {
      provider,
      model: 'warm-up',
      apiKey: 'warm-up',
      baseUrl: 'http://warm-up.invalid/v1',
      maxTokens: 16,
      temperature: 0,
      isByok: false,
      source: 'server',
    };
    const call: ProtocolCall = {
      target,
      request: REQUEST,
      endpoint: target.baseUrl!,
      fetch: async () => new Response(JSON.stringify(CANNED[provider]), { status: 200, headers: { 'content-type': 'application/json' } }),
      signal: new AbortController().signal,
      timeoutMs: 10_000,
    };
    await (provider === 'anthropic' ? callAnthropic(call) : callOpenAiCompatible(call));
  }
}
