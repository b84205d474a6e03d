import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { toOpenAiStrictSchema } from '@app/schema';
import { ModelCallError } from './model-errors';
import type { ModelRequest, ModelTarget, TokenUsage } from './model-types';

/** What a protocol returns before timing and labels are added. */
export interface ProtocolReply {
  text: string;
  json?: unknown;
  finishReason: 'stop' | 'length' | 'other';
  usage: TokenUsage;
  providerCostUsd: number | null;
}

export interface ProtocolCall {
  target: ModelTarget;
  request: ModelRequest;
  endpoint: string;
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  signal: AbortSignal;
  timeoutMs: number;
}

/** OpenAI reasoning models take no temperature (only the default). */
const NO_TEMPERATURE = /^(o\d|gpt-5)/i;

/** json_schema names must match ^[a-zA-Z0-9_-]{1,64}$. */
export function schemaNameOf(name: string | undefined): string {
  const cleaned = (name ?? '')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return cleaned || 'extraction';
}

/**
 * The chat completion body: OpenAI and OpenRouter get strict structured output (the strict variant of
 * the schema); Ollama gets `json_schema` with the normalised schema as is (it compiles the schema to a
 * grammar and has no strict mode; json_object would leave the shape to the prompt).
 */
export function openAiBody(target: ModelTarget, request: ModelRequest): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const maxTokens = request.maxTokens ?? target.maxTokens;
  const name = schemaNameOf(request.schemaName);
  const body: OpenAI.ChatCompletionCreateParamsNonStreaming & Record<string, unknown> = {
    model: target.model,
    messages: [
      { role: 'system', content: request.system },
      { role: 'user', content: request.user },
    ],
    response_format:
      target.provider === 'ollama'
        ? { type: 'json_schema', json_schema: { name, schema: request.schema as Record<string, unknown> } }
        : {
            type: 'json_schema',
            json_schema: { name, schema: toOpenAiStrictSchema(request.schema) as Record<string, unknown>, strict: true },
          },
  };
  // OpenAI deprecated max_tokens for max_completion_tokens (reasoning models reject the old name).
  if (target.provider === 'openai') body.max_completion_tokens = maxTokens;
  else body.max_tokens = maxTokens;
  if (!(target.provider === 'openai' && NO_TEMPERATURE.test(target.model))) body.temperature = target.temperature;
  // OpenRouter reports the exact charge in usage.cost when asked.
  if (target.provider === 'openrouter') body.usage = { include: true };
  return body;
}

/**
 * SDK clients by endpoint, key, timeout and fetch: building one costs more than a local model call
 * (a crawl makes one call per page with the same few). Few and short-lived, so a caller's key is not
 * kept in memory long after its calls: at most CLIENTS_KEPT, each dropped CLIENT_TTL_MS after it was built.
 */
const CLIENTS_KEPT = 32;
const CLIENT_TTL_MS = 60_000;
const clients = new Map<string, { client: OpenAI; fetch: ProtocolCall['fetch']; until: number }>();

function openAiClient(call: ProtocolCall): OpenAI {
  const apiKey = call.target.apiKey ?? 'ollama'; // Ollama ignores the key, but the SDK insists on one.
  const timeout = call.timeoutMs + 1_000;
  const key = `${call.endpoint}\n${timeout}\n${createHash('sha256').update(apiKey).digest('base64')}`;
  const now = Date.now();
  const kept = clients.get(key);
  if (kept && kept.fetch === call.fetch && kept.until > now) return kept.client;
  const client = new OpenAI({
    apiKey,
    baseURL: call.endpoint,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout,
    fetch: call.fetch,
    logLevel: 'off',
  });
  clients.delete(key);
  for (const [k, v] of clients) if (v.until <= now || clients.size >= CLIENTS_KEPT) clients.delete(k);
  clients.set(key, { client, fetch: call.fetch, until: now + CLIENT_TTL_MS });
  return client;
}

/** One chat completion with the openai SDK (openai, openrouter, ollama). */
export async function callOpenAiCompatible(call: ProtocolCall): Promise<ProtocolReply> {
  const client = openAiClient(call);
  const completion = (await client.chat.completions.create(openAiBody(call.target, call.request), {
    signal: call.signal,
    maxRetries: 0,
    timeout: call.timeoutMs + 1_000,
  })) as OpenAI.ChatCompletion & { error?: { message?: string; code?: number | string } };

  const usage: TokenUsage = {
    inputTokens: nonNegative(completion.usage?.prompt_tokens),
    outputTokens: nonNegative(completion.usage?.completion_tokens),
  };
  const rawCost = (completion.usage as { cost?: unknown } | undefined)?.cost;
  const providerCostUsd = typeof rawCost === 'number' && Number.isFinite(rawCost) && rawCost >= 0 ? rawCost : null;
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!choice?.message) {
    // OpenRouter can answer 200 with an error object when the upstream model failed.
    const detail = completion.error?.message ? `: ${completion.error.message}` : '';
    throw new ModelCallError('llm_provider_error', `${call.target.provider} ${call.target.model}: malformed reply (no choice)${detail}`, {
      usage,
      providerCostUsd,
    });
  }
  if (choice.finish_reason === 'length') {
    throw new ModelCallError('llm_truncation', `${call.target.provider} ${call.target.model}: the reply was cut at max_tokens`, {
      usage,
      providerCostUsd,
    });
  }
  return {
    text: typeof choice.message.content === 'string' ? choice.message.content : '',
    finishReason: choice.finish_reason === 'stop' ? 'stop' : 'other',
    usage,
    providerCostUsd,
  };
}

export function nonNegative(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}
