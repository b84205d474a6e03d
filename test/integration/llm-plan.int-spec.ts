/**
 * Which models answer, on the real LlmModule over the embedded SQLite store (sealed provider keys,
 * stored chains): request BYOK > the caller's chain with stored keys > the server default chain
 * with server keys > no_models; every chain field honoured; BYOK keys never logged.
 */
import { Test } from '@nestjs/testing';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { INestApplicationContext } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { loadConfig, type AppConfig } from '@app/config';
import { AppError, newId } from '@app/core';
import {
  LlmChainService,
  LlmConfigDto,
  LlmKeysService,
  LlmModule,
  ModelClient,
  ModelPlanner,
  ModelRouter,
  ModelRunError,
  type ChainEntryInput,
  type ModelCall,
} from '@app/llm';
import { createLogger, Metrics } from '@app/observability';
import { openPorts, PlatformModule } from '@app/platform';
import { LogCapture, tempDir } from '../e2e/helpers';
import { startModelServer, type ModelServer } from '../fixtures/model-server';

jest.setTimeout(60_000);

const SERVER_KEY = 'sk-proj-ServerHeldKey0123456789abcdefSRV';
const STORED_KEY = 'sk-proj-StoredUserKey0123456789abcdefUSR';
const BYOK_KEY = 'sk-proj-RequestOnlyByokKey0123456789BYOK';
const SCHEMA = {
  type: 'object' as const,
  properties: { title: { type: 'string' as const } },
  required: ['title'],
  additionalProperties: false as const,
};
const attempt = async (_t: unknown, call: ModelCall) => (await call({ system: 'Extract JSON.', user: '<h1>Hi</h1>', schema: SCHEMA })).text;

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
}

describe('model plan (LlmModule on the embedded store)', () => {
  let server: ModelServer;
  let context: INestApplicationContext;
  let config: AppConfig;
  let router: ModelRouter;
  const logs = new LogCapture();

  /** A tenant, as the auth guard would hand it over. */
  const newUser = (): Caller & { id: string } => {
    const id = newId();
    return { id, userId: id, organizationId: newId(), keyId: newId(), scopes: [], fullAccess: true, isAdmin: false };
  };
  const putKey = (user: Caller, input: { provider: 'openai' | 'anthropic'; api_key?: string; base_url?: string; is_enabled: boolean }) =>
    context.get(LlmKeysService).put(user, input);
  const putChain = (user: Caller, chain: ChainEntryInput[]) => context.get(LlmChainService).replace(user, { chain });

  beforeAll(async () => {
    server = await startModelServer();
    config = loadConfig({
      DATA_DIR: tempDir('gleaner-llm-plan-'),
      LOG_LEVEL: 'debug',
      GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
      GLEANER_DEFAULT_CHAIN: JSON.stringify([
        { provider: 'anthropic', model: 'claude-haiku-4-5' }, // no server key for anthropic: skipped
        { provider: 'openai', model: 'gpt-4o-mini', max_tokens: 500, temperature: 0.2 },
      ]),
      GLEANER_OPENAI_API_KEY: SERVER_KEY,
      GLEANER_OPENAI_BASE_URL: server.openaiBaseUrl,
      GLEANER_LLM_RETRIES: '0',
      GLEANER_FEE_PERCENT: '20',
    });
    const logger = createLogger({ level: 'debug', destination: logs });
    const module = await Test.createTestingModule({
      imports: [PlatformModule.forRoot(config, await openPorts(config), logger, new Metrics('test')), LlmModule],
    }).compile();
    context = await module.init();
    router = context.get(ModelRouter);
  });
  afterAll(async () => {
    context.get(ModelClient).close();
    await context?.close();
    await server?.close();
  });
  beforeEach(() => server.reset());

  it('a caller with nothing configured gets the server default chain with server keys', async () => {
    const user = newUser();
    const plan = await router.plan({ userId: user.id });
    expect(plan).toEqual([
      expect.objectContaining({
        provider: 'openai',
        model: 'gpt-4o-mini',
        maxTokens: 500,
        temperature: 0.2,
        isByok: false,
        source: 'server',
        baseUrl: server.openaiBaseUrl,
        trustedEndpoint: true,
      }),
    ]);
    const result = await router.run(plan, attempt);
    expect(server.requests[0]).toMatchObject({ apiKey: SERVER_KEY, maxTokens: 500, temperature: 0.2 });
    expect(result.isByok).toBe(false);
    expect(result.costUsd).toBeCloseTo(result.llmCostUsd * 1.2, 9);
  });

  it("the caller's enabled chain entries in order, with stored keys; entries without a usable key are skipped", async () => {
    const user = newUser();
    await putKey(user, { provider: 'openai', api_key: STORED_KEY, base_url: server.openaiBaseUrl, is_enabled: true });
    await putChain(user, [
      { provider: 'anthropic', model: 'claude-haiku-4-5' }, // no stored anthropic key: skipped
      { provider: 'openai', model: 'gpt-4.1-mini', max_tokens: 300, temperature: 0.5 },
      { provider: 'openai', model: 'gpt-4o-mini', is_enabled: false }, // disabled entry
      { provider: 'ollama', model: 'llama3.2' }, // needs no key
    ]);
    const plan = await router.plan({ userId: user.id });
    expect(plan.map((t) => [t.provider, t.model, t.source])).toEqual([
      ['openai', 'gpt-4.1-mini', 'chain'],
      ['ollama', 'llama3.2', 'chain'],
    ]);
    expect(plan[0]).toMatchObject({ maxTokens: 300, temperature: 0.5, isByok: true, baseUrl: server.openaiBaseUrl, trustedEndpoint: true });
    expect(plan[1]).toMatchObject({ apiKey: undefined, baseUrl: 'http://127.0.0.1:11434/v1', maxTokens: 4096, temperature: 0 });
    const result = await router.run(plan, attempt);
    expect(server.requests[0]).toMatchObject({ model: 'gpt-4.1-mini', apiKey: STORED_KEY, maxTokens: 300, temperature: 0.5 });
    expect(result.isByok).toBe(true);
    // Logging a target never shows the key.
    expect(JSON.stringify(plan)).not.toContain(STORED_KEY);
  });

  it('a disabled provider key record disables the provider (then the server chain applies)', async () => {
    const user = newUser();
    await putKey(user, { provider: 'openai', api_key: STORED_KEY, is_enabled: false });
    await putChain(user, [{ provider: 'openai', model: 'gpt-4.1-mini' }]);
    const plan = await router.plan({ userId: user.id });
    expect(plan.map((t) => [t.model, t.source])).toEqual([['gpt-4o-mini', 'server']]);
  });

  it('llm_config with api_key wins over everything: BYOK for this request, never logged', async () => {
    const user = newUser();
    await putKey(user, { provider: 'openai', api_key: STORED_KEY, is_enabled: true });
    await putChain(user, [{ provider: 'openai', model: 'gpt-4.1-mini' }]);
    const plan = await router.plan(
      { userId: user.id },
      { provider: 'openai', model: 'gpt-4o-mini', api_key: BYOK_KEY, base_url: server.openaiBaseUrl, max_tokens: 123, temperature: 1 },
    );
    expect(plan).toHaveLength(1);
    expect(plan[0]).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
      apiKey: BYOK_KEY,
      maxTokens: 123,
      temperature: 1,
      isByok: true,
      source: 'request',
    });
    await router.run(plan, attempt);
    expect(server.requests[0]).toMatchObject({ apiKey: BYOK_KEY, maxTokens: 123, temperature: 1 });

    // A failing BYOK run: the key is in no log line, error or attempt record.
    const failing = await router.plan(
      { userId: user.id },
      { provider: 'openai', model: 'fail-500', api_key: BYOK_KEY, base_url: server.openaiBaseUrl },
    );
    const error = await failure(router.run(failing, attempt));
    expect(error).toBeInstanceOf(ModelRunError);
    expect(JSON.stringify(error)).not.toContain(BYOK_KEY);
    expect(JSON.stringify((error as ModelRunError).run)).not.toContain(BYOK_KEY);
    expect(logs.text).toContain('model attempt failed');
    expect(logs.text).not.toContain(BYOK_KEY);
    expect(logs.text).not.toContain(STORED_KEY);
    expect(logs.text).not.toContain(SERVER_KEY);
  });

  it('llm_config without api_key uses the stored key for its provider; none stored → no_models (422)', async () => {
    const user = newUser();
    await putKey(user, { provider: 'openai', api_key: STORED_KEY, base_url: server.openaiBaseUrl, is_enabled: true });
    const plan = await router.plan({ userId: user.id }, { provider: 'openai', model: 'gpt-4o-mini' });
    expect(plan[0]).toMatchObject({ apiKey: STORED_KEY, baseUrl: server.openaiBaseUrl, source: 'request', isByok: true });

    const error = await failure(router.plan({ userId: user.id }, { provider: 'anthropic', model: 'claude-haiku-4-5' }));
    expect(error).toMatchObject({ slug: 'validation-error', category: 'no_models' });

    const ollama = await router.plan({ userId: user.id }, { provider: 'ollama', model: 'llama3.2', base_url: server.url });
    expect(ollama[0]).toMatchObject({ provider: 'ollama', apiKey: undefined, baseUrl: `${server.url}/v1` });
  });

  it('nothing anywhere → no_models (422, caller-fixable)', async () => {
    const user = newUser();
    const planner = new ModelPlanner(context.get(LlmKeysService), context.get(LlmChainService), { ...config, defaultChain: [] });
    const error = await failure(planner.plan({ userId: user.id }));
    expect(error).toMatchObject({ slug: 'validation-error', category: 'no_models' });
    expect(error.message).toContain('llm_config');
  });
});

describe('LlmConfigDto', () => {
  const check = async (value: Record<string, unknown>) =>
    (await validate(plainToInstance(LlmConfigDto, value))).map((e) => e.property).sort();

  it('accepts a full BYOK config and a minimal one', async () => {
    expect(
      await check({
        provider: 'openai',
        model: 'gpt-4o-mini',
        api_key: 'sk-x',
        base_url: 'https://example.com/v1',
        max_tokens: 100,
        temperature: 2,
      }),
    ).toEqual([]);
    expect(await check({ provider: 'ollama', model: 'llama3.2' })).toEqual([]);
  });

  it('rejects each bad field', async () => {
    expect(
      await check({ provider: 'gemini', model: '', max_tokens: 0, temperature: 2.5, base_url: 'ftp://x', api_key: 'k'.repeat(4097) }),
    ).toEqual(['api_key', 'base_url', 'max_tokens', 'model', 'provider', 'temperature']);
    expect(await check({ provider: 'openai', model: 'm', base_url: 'https://user:pw@example.com', max_tokens: 200_001 })).toEqual([
      'base_url',
      'max_tokens',
    ]);
  });
});
