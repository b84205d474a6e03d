/**
 * ModelRouter against the local model server: every fallback rule, attempt records, cost
 * arithmetic (price table × tokens, OpenRouter's usage.cost, the operator fee), deadline and
 * cancellation across attempts, and the Prometheus series.
 */
import { AppError } from '@app/core';
import { AddressGuard } from '@app/fetch';
import {
  modelRetryDelayMs,
  fallbackAction,
  LlmMetrics,
  ModelCallParts,
  ModelClient,
  ModelRouter,
  ModelRunError,
  pauseUnlessAborted,
  PriceTable,
  type AttemptFunction,
  type LlmConfig,
  type ModelCall,
  type ModelPlanner,
  type ModelRequest,
  type ModelTarget,
  type RetryPause,
  type RetryPolicy,
} from '@app/llm';
import { createLogger, Metrics } from '@app/observability';
import type { JsonSchemaObject } from '@app/schema';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { LogCapture, waitFor } from '../e2e/helpers';

const SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: { title: { type: 'string' } },
  required: ['title'],
  additionalProperties: false,
};
const REQUEST: ModelRequest = { system: 'Extract JSON.', user: '<h1>Blue Widget</h1>', schema: SCHEMA };
const OPENAI_KEY = 'sk-proj-RouterTestKey0123456789abcdefXYZ';
const ANTHROPIC_KEY = 'sk-ant-api03-RouterTestKey0123456789abcdef';
const PRICES = PriceTable.fromFiles([
  {
    source: 'test',
    doc: {
      providers: {
        openai: {
          'gpt-4o-mini': { context_tokens: 128_000, input_usd_per_mtok: 1, output_usd_per_mtok: 2 },
          truncate: { context_tokens: 128_000, input_usd_per_mtok: 1, output_usd_per_mtok: 2 },
        },
        anthropic: { 'claude-haiku-4-5': { context_tokens: 200_000, input_usd_per_mtok: 3, output_usd_per_mtok: 15 } },
        openrouter: { 'openai/gpt-4o-mini': { context_tokens: 128_000, input_usd_per_mtok: 500, output_usd_per_mtok: 500 } },
      },
    },
  },
]);

/** The attempt the extraction code writes: one call, JSON parsing, llm_invalid_output when it fails. */
const parseAttempt = async (_target: ModelTarget, call: ModelCall) => {
  const reply = await call(REQUEST);
  try {
    return reply.json ?? (JSON.parse(reply.text) as unknown);
  } catch {
    throw new AppError('upstream-failure', 'The reply is not JSON.', { category: 'llm_invalid_output' });
  }
};

async function runFailure(promise: Promise<unknown>): Promise<ModelRunError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ModelRunError);
    return error as ModelRunError;
  }
  throw new Error('expected the run to fail');
}

describe('ModelRouter (local model server)', () => {
  let server: ModelServer;
  let client: ModelClient;
  let metrics: Metrics;
  let logs: LogCapture;

  const makeRouter = (policy: Partial<RetryPolicy> = {}, over: { client?: ModelClient; feePercent?: number; pause?: RetryPause } = {}) =>
    new ModelRouter(
      {} as ModelPlanner,
      new ModelCallParts(over.client ?? client, PRICES, new LlmMetrics(metrics)),
      { llmRetries: 2, feePercent: over.feePercent ?? 10 } as LlmConfig,
      createLogger({ level: 'debug', destination: logs }),
      { baseDelayMs: 5, maxDelayMs: 2_000, ...policy },
      over.pause,
    );
  /** A pause that records the wait the router asks for and returns at once. */
  const recordingPause = () => {
    const requested: number[] = [];
    const pause: RetryPause = async (ms) => {
      requested.push(ms);
      return true;
    };
    return { requested, pause };
  };
  const openai = (model: string, over: Partial<ModelTarget> = {}): ModelTarget => ({
    provider: 'openai',
    model,
    apiKey: OPENAI_KEY,
    baseUrl: server.openaiBaseUrl,
    maxTokens: 1000,
    temperature: 0,
    isByok: true,
    source: 'chain',
    ...over,
  });
  const anthropic = (model = 'claude-haiku-4-5', over: Partial<ModelTarget> = {}): ModelTarget =>
    openai(model, { provider: 'anthropic', apiKey: ANTHROPIC_KEY, baseUrl: server.anthropicBaseUrl, ...over });
  const modelsCalled = () => server.requests.map((r) => r.model);

  beforeAll(async () => {
    server = await startModelServer();
    client = new ModelClient({ guard: new AddressGuard({ allowPrivateNetworks: true }), timeoutMs: 5_000 });
    metrics = new Metrics('test');
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    logs = new LogCapture();
  });

  describe('success and cost', () => {
    it('the first working entry answers; cost = price table × tokens, plus the fee', async () => {
      const result = await makeRouter().run([openai('gpt-4o-mini'), anthropic()], parseAttempt);
      expect(result.value).toEqual({ title: expect.any(String) });
      expect(result.target.model).toBe('gpt-4o-mini');
      expect(result.attempts).toHaveLength(1);
      const [attempt] = result.attempts;
      expect(attempt).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', outcome: 'success', cost_known: true });
      expect(attempt.input_tokens).toBeGreaterThan(0);
      expect(attempt.output_tokens).toBeGreaterThan(0);
      const expected = (attempt.input_tokens * 1 + attempt.output_tokens * 2) / 1e6;
      expect(attempt.llm_cost_usd).toBeCloseTo(expected, 9);
      expect(result.llmCostUsd).toBeCloseTo(expected, 9);
      expect(result.costUsd).toBeCloseTo(expected * 1.1, 9);
      expect(result.usage).toEqual({ inputTokens: attempt.input_tokens, outputTokens: attempt.output_tokens });
      expect(result.isByok).toBe(true);
      expect(modelsCalled()).toEqual(['gpt-4o-mini']);
    });

    it('OpenRouter: the reported usage.cost wins over the price table', async () => {
      const result = await makeRouter({}, { feePercent: 0 }).run(
        [openai('openai/gpt-4o-mini', { provider: 'openrouter', isByok: false, source: 'server' })],
        parseAttempt,
      );
      const [attempt] = result.attempts;
      const reported = Number(((attempt.input_tokens + attempt.output_tokens) * 1e-6).toFixed(9));
      expect(attempt.llm_cost_usd).toBeCloseTo(reported, 12);
      expect(result.costUsd).toBeCloseTo(reported, 12);
      expect(result.isByok).toBe(false);
    });

    it('a model the price table does not know costs 0 with cost_known false', async () => {
      const result = await makeRouter().run([openai('mystery-model-1')], parseAttempt);
      expect(result.attempts[0]).toMatchObject({ outcome: 'success', llm_cost_usd: 0, cost_known: false });
      expect(result.llmCostUsd).toBe(0);
      expect(result.costUsd).toBe(0);
    });

    it('several calls in one attempt (a repair) are one attempt with summed tokens', async () => {
      const result = await makeRouter().run([openai('gpt-4o-mini')], async (_t, call) => {
        const first = await call(REQUEST);
        const second = await call({ ...REQUEST, user: `Fix this: ${first.text}` });
        return [first.usage, second.usage];
      });
      const [a, b] = result.value;
      expect(result.attempts).toHaveLength(1);
      expect(result.attempts[0].input_tokens).toBe(a.inputTokens + b.inputTokens);
      expect(result.attempts[0].output_tokens).toBe(a.outputTokens + b.outputTokens);
      expect(server.requests).toHaveLength(2);
    });
  });

  describe('fallback rules', () => {
    it('a failing and a working entry: ends with the working one and records both', async () => {
      const result = await makeRouter({ retries: 0 }).run([openai('fail-500'), anthropic()], parseAttempt);
      expect(result.target.provider).toBe('anthropic');
      expect(result.attempts.map((a) => [a.provider, a.model, a.outcome])).toEqual([
        ['openai', 'fail-500', 'llm_provider_error'],
        ['anthropic', 'claude-haiku-4-5', 'success'],
      ]);
      expect(result.attempts[0].error_message).toContain('500');
    });

    it.each(['fail-500', 'fail-503'])('transient %s: retried N times on the same entry, then the next', async (model) => {
      const result = await makeRouter({ retries: 2 }).run([openai(model), openai('gpt-4o-mini')], parseAttempt);
      expect(result.attempts.map((a) => a.outcome)).toEqual(['llm_provider_error', 'llm_provider_error', 'llm_provider_error', 'success']);
      expect(modelsCalled()).toEqual([model, model, model, 'gpt-4o-mini']);
    });

    it('a flaky entry succeeds on a retry', async () => {
      const result = await makeRouter({ retries: 2 }).run([openai('flaky-2'), anthropic()], parseAttempt);
      expect(result.target.model).toBe('flaky-2');
      expect(result.attempts.map((a) => a.outcome)).toEqual(['llm_provider_error', 'llm_provider_error', 'success']);
    });

    it('429 retries after Retry-After (1 s)', async () => {
      const { requested, pause } = recordingPause();
      const result = await makeRouter({ retries: 1 }, { pause }).run([openai('fail-429'), anthropic()], parseAttempt);
      expect(result.attempts.map((a) => a.outcome)).toEqual(['llm_rate_limit', 'llm_rate_limit', 'success']);
      // The backoff alone would be a few ms (baseDelayMs 5): the one pause is the provider's Retry-After.
      expect(requested).toEqual([1_000]);
    });

    it('a Retry-After beyond the cap moves on at once instead of waiting', async () => {
      const { requested, pause } = recordingPause();
      const result = await makeRouter({ retries: 3, maxDelayMs: 500 }, { pause }).run(
        [anthropic('fail-429'), openai('gpt-4o-mini')],
        parseAttempt,
      );
      expect(result.attempts.map((a) => a.outcome)).toEqual(['llm_rate_limit', 'success']);
      expect(requested).toEqual([]);
    });

    it('llm_timeout: retried, then the next entry', async () => {
      // The run's deadline ends the slow entry's calls (the server would answer in ten minutes); the
      // healthy entry's call sets a generous deadline of its own, so a busy machine cannot fail it.
      const attempt: AttemptFunction<unknown> = (target, call) =>
        parseAttempt(target, target.model.startsWith('slow-') ? call : (request) => call({ ...request, timeoutMs: 30_000 }));
      const result = await makeRouter({ retries: 1 }).run([openai('slow-600000'), anthropic()], attempt, { timeoutMs: 1_000 });
      expect(result.attempts.map((a) => a.outcome)).toEqual(['llm_timeout', 'llm_timeout', 'success']);
      expect(modelsCalled()).toEqual(['slow-600000', 'slow-600000', 'claude-haiku-4-5']);
      // Each timed-out call dropped its connection: the server saw both requests go away unanswered.
      await waitFor(async () => server.requests.slice(0, 2).every((r) => r.aborted));
      expect(server.requests.slice(0, 2).map((r) => r.status)).toEqual([null, null]);
    });

    it('llm_truncation moves to the next entry without retry, and its tokens are billed', async () => {
      const result = await makeRouter({ retries: 2 }).run([openai('truncate'), openai('gpt-4o-mini')], parseAttempt);
      expect(result.attempts.map((a) => a.outcome)).toEqual(['llm_truncation', 'success']);
      expect(result.attempts[0].output_tokens).toBeGreaterThan(0);
      expect(result.usage.outputTokens).toBe(result.attempts[0].output_tokens + result.attempts[1].output_tokens);
    });

    it('llm_invalid_output thrown by the attempt moves to the next entry without retry', async () => {
      const result = await makeRouter({ retries: 2 }).run([openai('invalid-json'), anthropic('invalid-json'), anthropic()], parseAttempt);
      expect(result.attempts.map((a) => `${a.provider}:${a.outcome}`)).toEqual([
        'openai:llm_invalid_output',
        'anthropic:llm_invalid_output',
        'anthropic:success',
      ]);
      expect(result.attempts[0].input_tokens).toBeGreaterThan(0);
    });

    it('an invalid key skips every entry of that provider', async () => {
      const result = await makeRouter().run(
        [openai('gpt-4o-mini', { apiKey: 'bad-key' }), openai('gpt-4.1-mini', { apiKey: 'bad-key' }), anthropic()],
        parseAttempt,
      );
      expect(result.attempts.map((a) => `${a.provider}:${a.outcome}`)).toEqual(['openai:llm_invalid_key', 'anthropic:success']);
      expect(modelsCalled()).toEqual(['gpt-4o-mini', 'claude-haiku-4-5']);
    });

    it('an exhausted quota skips every entry of that provider', async () => {
      const result = await makeRouter().run([anthropic('quota'), anthropic('claude-sonnet-4-5'), openai('gpt-4o-mini')], parseAttempt);
      expect(result.attempts.map((a) => `${a.provider}:${a.outcome}`)).toEqual(['anthropic:llm_quota_exceeded', 'openai:success']);
    });

    it('invalid_request stops: no further entry is tried', async () => {
      const error = await runFailure(makeRouter().run([openai('gpt-4o-mini', { temperature: 5 }), anthropic()], parseAttempt));
      expect(error.category).toBe('invalid_request');
      expect(error.run.attempts.map((a) => a.outcome)).toEqual(['invalid_request']);
      expect(modelsCalled()).toEqual(['gpt-4o-mini']);
    });

    it('when every entry fails, the last error is thrown with all attempts and their cost', async () => {
      const error = await runFailure(makeRouter({ retries: 0 }).run([openai('fail-500'), openai('truncate')], parseAttempt));
      expect(error).toBeInstanceOf(AppError);
      expect(error.category).toBe('llm_truncation');
      expect(error.run.attempts.map((a) => a.outcome)).toEqual(['llm_provider_error', 'llm_truncation']);
      const truncated = error.run.attempts[1];
      expect(error.run.llmCostUsd).toBeCloseTo((truncated.input_tokens + truncated.output_tokens * 2) / 1e6, 9);
      expect(error.run.costUsd).toBeCloseTo(error.run.llmCostUsd * 1.1, 9);
    });

    it('ssrf_blocked skips that endpoint and goes on', async () => {
      const strict = new ModelClient({ guard: new AddressGuard({ allowPrivateNetworks: false }), timeoutMs: 5_000 });
      const result = await makeRouter({}, { client: strict }).run(
        [openai('gpt-4o-mini'), openai('gpt-4.1-mini'), openai('gpt-4o-mini', { trustedEndpoint: true, source: 'server' })],
        parseAttempt,
      );
      expect(result.attempts.map((a) => a.outcome)).toEqual(['ssrf_blocked', 'success']);
      expect(server.requests).toHaveLength(1);
      strict.close();
    });

    it('a non-model error of the attempt (a bug) is rethrown as is', async () => {
      const bug = new TypeError('boom');
      await expect(makeRouter().run([openai('gpt-4o-mini'), anthropic()], async () => Promise.reject(bug))).rejects.toBe(bug);
    });
  });

  describe('cancellation', () => {
    it('aborting the run cancels the current call and tries nothing more', async () => {
      const controller = new AbortController();
      const running = runFailure(makeRouter().run([openai('slow-600000'), anthropic()], parseAttempt, { signal: controller.signal }));
      // Abort once the call is provably in flight: the server holds it (for ten minutes).
      await waitFor(async () => server.requests.length === 1);
      controller.abort();
      const error = await running;
      expect(error.category).toBe('cancelled');
      expect(modelsCalled()).toEqual(['slow-600000']);
      await waitFor(async () => server.requests[0].aborted);
      expect(server.requests[0].status).toBeNull();
    });

    it('aborting during a backoff pause stops the run', async () => {
      const controller = new AbortController();
      const requested: number[] = [];
      let pausing!: () => void;
      const paused = new Promise<void>((resolve) => (pausing = resolve));
      // The real pause, minutes long: only the abort can end it within the test timeout.
      const pause: RetryPause = (ms, signal) => {
        requested.push(ms);
        pausing();
        return pauseUnlessAborted(ms, signal);
      };
      const running = runFailure(
        makeRouter({ retries: 3, baseDelayMs: 600_000, maxDelayMs: 600_000 }, { pause }).run(
          [openai('fail-429'), anthropic()],
          parseAttempt,
          {
            signal: controller.signal,
          },
        ),
      );
      await paused;
      controller.abort();
      const error = await running;
      expect(error.category).toBe('cancelled');
      expect(modelsCalled()).toEqual(['fail-429']);
      expect(requested).toHaveLength(1);
      expect(requested[0]).toBeGreaterThanOrEqual(300_000);
    });
  });

  describe('logs and metrics', () => {
    it('failed attempts are logged without the key', async () => {
      await makeRouter({ retries: 0 }).run([openai('fail-401'), openai('fail-500'), anthropic('fail-500'), anthropic()], parseAttempt);
      expect(logs.text).toContain('model attempt failed');
      expect(logs.text).not.toContain(OPENAI_KEY);
      expect(logs.text).not.toContain(ANTHROPIC_KEY);
    });

    it('exports calls, tokens, cost and duration per provider and model', async () => {
      await makeRouter({ retries: 0 }).run([openai('fail-500'), openai('gpt-4o-mini')], parseAttempt);
      const text = await metrics.render();
      expect(text).toMatch(/gleaner_llm_calls_total\{[^}]*provider="openai",model="gpt-4o-mini",outcome="success"[^}]*\} \d+/);
      expect(text).toMatch(/gleaner_llm_calls_total\{[^}]*provider="openai",model="fail-500",outcome="llm_provider_error"[^}]*\} \d+/);
      expect(text).toMatch(/gleaner_llm_tokens_total\{[^}]*provider="openai",model="gpt-4o-mini",direction="input"[^}]*\} \d+/);
      expect(text).toMatch(/gleaner_llm_tokens_total\{[^}]*provider="openai",model="gpt-4o-mini",direction="output"[^}]*\} \d+/);
      expect(text).toMatch(/gleaner_llm_cost_usd_total\{[^}]*provider="openai",model="gpt-4o-mini"[^}]*\} [\d.e-]+/);
      expect(text).toMatch(/gleaner_llm_duration_seconds_count\{[^}]*provider="openai",model="gpt-4o-mini"[^}]*\} \d+/);
    });
  });
});

describe('fallback policy', () => {
  const policy: RetryPolicy = { retries: 2, baseDelayMs: 250, maxDelayMs: 10_000 };

  it.each([
    ['llm_rate_limit', 0, 'retry'],
    ['llm_provider_error', 1, 'retry'],
    ['llm_timeout', 2, 'next'],
    ['llm_truncation', 0, 'next'],
    ['llm_invalid_output', 0, 'next'],
    ['llm_invalid_key', 0, 'skip-key'],
    ['llm_quota_exceeded', 0, 'skip-key'],
    ['ssrf_blocked', 0, 'skip-endpoint'],
    ['invalid_request', 0, 'stop'],
    ['cancelled', 0, 'stop'],
    ['internal', 0, 'stop'],
  ] as const)('%s after %d retries → %s', (category, done, action) => {
    expect(fallbackAction(category, done, policy)).toBe(action);
  });

  it('backs off exponentially with jitter, capped, honouring Retry-After', () => {
    expect(modelRetryDelayMs(0, undefined, policy, () => 1)).toBe(250);
    expect(modelRetryDelayMs(0, undefined, policy, () => 0)).toBe(125);
    expect(modelRetryDelayMs(3, undefined, policy, () => 1)).toBe(2_000);
    expect(modelRetryDelayMs(10, undefined, policy, () => 1)).toBe(10_000);
    expect(modelRetryDelayMs(0, 2, policy, () => 1)).toBe(2_000);
    expect(modelRetryDelayMs(0, 0.5, policy, () => 1)).toBe(500);
    expect(modelRetryDelayMs(0, 60, policy)).toBeNull();
  });
});
