/**
 * ModelClient against the local model server: both SDK protocols, the structured-output request
 * each provider gets, token usage, OpenRouter's reported cost, keyless Ollama, error mapping,
 * deadline and abort, and the address guard on model endpoints.
 */
import { AppError } from '@app/core';
import { AddressGuard } from '@app/fetch';
import { ModelClient, type ModelRequest, type ModelTarget } from '@app/llm';
import { toOpenAiStrictSchema, type JsonSchemaObject } from '@app/schema';
import { waitFor } from '../e2e/helpers';
import { startModelServer, type ModelServer } from '../fixtures/model-server';

const SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1 },
    price: { type: ['number', 'null'] },
  },
  required: ['title'],
  additionalProperties: false,
};
const OPENAI_KEY = 'sk-proj-ClientTestKey0123456789abcdefXYZ';
const ANTHROPIC_KEY = 'sk-ant-api03-ClientTestKey0123456789abcdef';

const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'Extract data as JSON.',
  user: '<h1>Blue Widget</h1><p>Price: $12.50</p>',
  schema: SCHEMA,
  schemaName: 'product data',
  ...over,
});

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
}

describe('ModelClient (local model server)', () => {
  let server: ModelServer;
  let client: ModelClient;
  const target = (over: Partial<ModelTarget> = {}): ModelTarget => ({
    provider: 'openai',
    model: 'gpt-4o-mini',
    apiKey: OPENAI_KEY,
    baseUrl: server.openaiBaseUrl,
    maxTokens: 1000,
    temperature: 0.3,
    isByok: true,
    source: 'request',
    ...over,
  });
  const anthropic = (over: Partial<ModelTarget> = {}) =>
    target({ provider: 'anthropic', model: 'claude-haiku-4-5', apiKey: ANTHROPIC_KEY, baseUrl: server.anthropicBaseUrl, ...over });

  beforeAll(async () => {
    server = await startModelServer();
    client = new ModelClient({ guard: new AddressGuard({ allowPrivateNetworks: true }), timeoutMs: 5_000 });
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });
  beforeEach(() => server.reset());

  describe('openai protocol', () => {
    it('reuses an SDK client per endpoint and key, and never sends one caller’s key for another', async () => {
      const other = 'sk-proj-OtherCallerKey0123456789abcdefXYZ';
      for (const apiKey of [OPENAI_KEY, other, OPENAI_KEY, other]) await client.complete(target({ apiKey }), request());
      expect(server.requests.map((r) => r.apiKey)).toEqual([OPENAI_KEY, other, OPENAI_KEY, other]);
      // Another endpoint with the same key: its own client, its own address.
      await client.complete(target({ baseUrl: server.openaiBaseUrl.replace('127.0.0.1', 'localhost') }), request());
      expect(server.requests).toHaveLength(5);
      expect(server.requests[4].apiKey).toBe(OPENAI_KEY);
    });

    it('sends strict json_schema structured output, max_completion_tokens and temperature, with the key as Bearer', async () => {
      const reply = await client.complete(target(), request());
      expect(server.requests).toHaveLength(1);
      const sent = server.requests[0];
      expect(sent).toMatchObject({
        protocol: 'openai',
        path: '/v1/chat/completions',
        apiKey: OPENAI_KEY,
        model: 'gpt-4o-mini',
        maxTokens: 1000,
        temperature: 0.3,
      });
      const body = sent.body as Record<string, any>;
      expect(body.max_completion_tokens).toBe(1000);
      expect(body.response_format).toEqual({
        type: 'json_schema',
        json_schema: {
          name: 'product_data',
          strict: true,
          schema: toOpenAiStrictSchema(SCHEMA),
        },
      });
      // Strict mode: every property required (optional ones nullable), objects closed.
      expect(body.response_format.json_schema.schema).toMatchObject({ required: ['title', 'price'], additionalProperties: false });
      expect(body.messages).toEqual([
        { role: 'system', content: 'Extract data as JSON.' },
        { role: 'user', content: '<h1>Blue Widget</h1><p>Price: $12.50</p>' },
      ]);
      expect(body.stream).toBeUndefined();
      expect(reply).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', finishReason: 'stop', providerCostUsd: null });
      expect(JSON.parse(reply.text)).toEqual(expect.objectContaining({ title: expect.any(String) }));
      expect(reply.usage.inputTokens).toBeGreaterThan(0);
      expect(reply.usage.outputTokens).toBeGreaterThan(0);
      expect(reply.durationMs).toBeGreaterThanOrEqual(0);
    });

    it('request maxTokens overrides the target', async () => {
      await client.complete(target(), request({ maxTokens: 321 }));
      expect(server.requests[0].maxTokens).toBe(321);
    });

    it('openrouter: max_tokens, usage accounting asked for, cost taken from usage.cost', async () => {
      const reply = await client.complete(target({ provider: 'openrouter', model: 'openai/gpt-4o-mini' }), request());
      const body = server.requests[0].body as Record<string, any>;
      expect(body.max_tokens).toBe(1000);
      expect(body.max_completion_tokens).toBeUndefined();
      expect(body.usage).toEqual({ include: true });
      expect(body.response_format.json_schema.strict).toBe(true);
      const expected = Number(((reply.usage.inputTokens + reply.usage.outputTokens) * 1e-6).toFixed(9));
      expect(reply.providerCostUsd).toBeCloseTo(expected, 12);
      expect(reply.providerCostUsd).toBeGreaterThan(0);
    });

    it('ollama: no key needed, /v1 added to a bare server URL, json_schema with the schema as is', async () => {
      const reply = await client.complete(
        target({ provider: 'ollama', model: 'llama3.2', apiKey: undefined, baseUrl: server.url }),
        request(),
      );
      const sent = server.requests[0];
      expect(sent.path).toBe('/v1/chat/completions');
      const body = sent.body as Record<string, any>;
      expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'product_data', schema: SCHEMA } });
      expect(body.max_tokens).toBe(1000);
      expect(JSON.parse(reply.text)).toHaveProperty('title');
    });

    it('finish_reason length is llm_truncation and keeps the billed usage', async () => {
      const error = await failure(client.complete(target({ model: 'truncate' }), request()));
      expect(error.category).toBe('llm_truncation');
      expect((error as { usage?: { outputTokens: number } }).usage?.outputTokens).toBeGreaterThan(0);
    });
  });

  describe('anthropic protocol', () => {
    it('forces the extract tool with the schema and returns the tool input as json and text', async () => {
      const reply = await client.complete(anthropic(), request({ maxTokens: 777 }));
      const sent = server.requests[0];
      expect(sent).toMatchObject({
        protocol: 'anthropic',
        path: '/v1/messages',
        apiKey: ANTHROPIC_KEY,
        maxTokens: 777,
        schemaName: 'extract',
      });
      const body = sent.body as Record<string, any>;
      expect(body.tools).toEqual([{ name: 'extract', description: expect.any(String), input_schema: SCHEMA }]);
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'extract' });
      expect(body.system).toBe('Extract data as JSON.');
      expect(body.messages).toEqual([{ role: 'user', content: '<h1>Blue Widget</h1><p>Price: $12.50</p>' }]);
      expect(sent.headers['anthropic-version']).toBeDefined();
      expect(reply.json).toEqual(expect.objectContaining({ title: expect.any(String) }));
      expect(JSON.parse(reply.text)).toEqual(reply.json);
      expect(reply).toMatchObject({ provider: 'anthropic', finishReason: 'stop', providerCostUsd: null });
      expect(reply.usage.inputTokens).toBeGreaterThan(0);
      expect(reply.usage.outputTokens).toBeGreaterThan(0);
    });

    it('stop_reason max_tokens is llm_truncation', async () => {
      expect((await failure(client.complete(anthropic({ model: 'truncate' }), request()))).category).toBe('llm_truncation');
    });
  });

  describe('error mapping', () => {
    it.each([
      ['openai', 'fail-401', 'llm_invalid_key'],
      ['openai', 'fail-429', 'llm_rate_limit'],
      ['openai', 'quota', 'llm_quota_exceeded'],
      ['openai', 'fail-500', 'llm_provider_error'],
      ['openai', 'fail-503', 'llm_provider_error'],
      ['anthropic', 'fail-401', 'llm_invalid_key'],
      ['anthropic', 'fail-429', 'llm_rate_limit'],
      ['anthropic', 'quota', 'llm_quota_exceeded'],
      ['anthropic', 'fail-500', 'llm_provider_error'],
      // 529 overloaded: docs/api.md "error_category" puts "overloaded" under llm_rate_limit.
      ['anthropic', 'fail-503', 'llm_rate_limit'],
    ])('%s %s → %s', async (protocol, model, category) => {
      const t = protocol === 'anthropic' ? anthropic({ model }) : target({ model });
      const error = await failure(client.complete(t, request()));
      expect(error.category).toBe(category);
      expect(error.message).not.toContain(t.apiKey!);
      expect(JSON.stringify(error)).not.toContain(t.apiKey!);
    });

    it('429 carries Retry-After', async () => {
      expect((await failure(client.complete(target({ model: 'fail-429' }), request()))).retryAfterSeconds).toBe(1);
      expect((await failure(client.complete(anthropic({ model: 'fail-429' }), request()))).retryAfterSeconds).toBe(1);
    });

    it('a rejected key is llm_invalid_key and the message never holds the key', async () => {
      const error = await failure(client.complete(target({ apiKey: 'bad-key' }), request()));
      expect(error.category).toBe('llm_invalid_key');
    });

    it('400 is invalid_request with the provider message', async () => {
      const error = await failure(client.complete(target({ temperature: 5 }), request()));
      expect(error.category).toBe('invalid_request');
      expect(error.message).toContain('temperature');
    });

    it('a connection refused is llm_provider_error', async () => {
      const closed = await startModelServer();
      await closed.close();
      const error = await failure(client.complete(target({ baseUrl: closed.openaiBaseUrl }), request()));
      expect(error.category).toBe('llm_provider_error');
    });
  });

  // The slow model would answer in ten minutes: only the deadline or the abort can end these calls,
  // and the server records that the client went away without an answer.
  describe('deadline and abort', () => {
    const droppedByClient = async () => {
      await waitFor(async () => server.requests[0]?.aborted);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]).toMatchObject({ model: 'slow-600000', aborted: true, status: null });
    };

    it('a reply slower than the deadline is llm_timeout and the connection is dropped', async () => {
      const error = await failure(client.complete(target({ model: 'slow-600000' }), request({ timeoutMs: 1_000 })));
      expect(error.category).toBe('llm_timeout');
      await droppedByClient();
    });

    it('the anthropic protocol times out too', async () => {
      const error = await failure(client.complete(anthropic({ model: 'slow-600000' }), request({ timeoutMs: 1_000 })));
      expect(error.category).toBe('llm_timeout');
      await droppedByClient();
    });

    it('an abort signal cancels the call', async () => {
      const controller = new AbortController();
      const call = failure(client.complete(target({ model: 'slow-600000' }), request({ signal: controller.signal })));
      // Abort once the request is provably in flight (the server holds it).
      await waitFor(async () => server.requests.length === 1);
      controller.abort();
      const error = await call;
      expect(error.category).toBe('cancelled');
      await droppedByClient();
    });

    it('an already aborted signal makes no request', async () => {
      const controller = new AbortController();
      controller.abort();
      expect((await failure(client.complete(target(), request({ signal: controller.signal })))).category).toBe('cancelled');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('address guard', () => {
    const strict = () => new ModelClient({ guard: new AddressGuard({ allowPrivateNetworks: false }), timeoutMs: 5_000 });

    it('refuses a loopback or private endpoint when private networks are not allowed, before any request', async () => {
      const guarded = strict();
      for (const baseUrl of [server.openaiBaseUrl, 'http://10.0.0.5:11434/v1', 'http://169.254.169.254/v1']) {
        const error = await failure(guarded.complete(target({ baseUrl }), request()));
        expect(error.category).toBe('ssrf_blocked');
        expect(error.message).not.toContain(OPENAI_KEY);
      }
      expect((await failure(guarded.complete(anthropic(), request()))).category).toBe('ssrf_blocked');
      expect(server.requests).toHaveLength(0);
      guarded.close();
    });

    it('an operator-configured endpoint (trustedEndpoint) may be private', async () => {
      const guarded = strict();
      const reply = await guarded.complete(target({ trustedEndpoint: true }), request());
      expect(reply.finishReason).toBe('stop');
      guarded.close();
    });
  });
});
