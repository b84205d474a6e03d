/**
 * End-to-end tests of the language-model configuration: provider keys (sealed at rest, never
 * returned or logged), providers, models from the price table, and the fallback chain. The suite
 * runs on the embedded deployment and, when the servers are there, on MongoDB + Redis; restart and
 * rotation tests run on a fixed DATA_DIR.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@app/config';
import { SecretBox } from '@app/core';
import { EMPTY_OR_HTTP_URL_NO_FRAGMENT_PATTERN, HTTP_URL_NO_FRAGMENT_PATTERN, SCHEMA_MISMATCH_DETAIL } from '@app/http';
import { LlmKeysService, type LlmConfig, type ProviderKeyRecord } from '@app/llm';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { createApiApp } from '../../apps/api/src/create-app';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, LogCapture, tempDir, waitFor } from './helpers';

jest.setTimeout(60_000);

const OPENAI_KEY = 'sk-proj-E2eSecretProviderKey0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-api03-E2eAnthropicSecret0123456789';
const OTHER_TENANT_KEY = 'sk-or-v1-OtherTenantSecret0123456789abcd';
const ALL_SECRETS = [OPENAI_KEY, ANTHROPIC_KEY, OTHER_TENANT_KEY];
const RECORD_FIELDS = ['base_url', 'created_at', 'has_key', 'id', 'is_enabled', 'provider', 'updated_at'];
const CHAIN_FIELDS = ['created_at', 'id', 'is_enabled', 'max_tokens', 'model', 'position', 'provider', 'temperature', 'updated_at'];

async function storedKeyRecords(app: RunningApp['app']): Promise<ProviderKeyRecord[]> {
  const store = app.get<symbol, DocumentStore>(DOCUMENT_STORE);
  const keys = await store.collection<ProviderKeyRecord>({ name: 'llm_provider_keys', indexes: [] });
  return keys.find({});
}

function llmSuite(getEnv: () => RunningApp): void {
  let env: RunningApp;
  let admin: string;
  let other: { id: string; key: string };
  let scoped: string;
  const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) => http(env.baseUrl, method, path, options);
  const keysService = () => env.app.get(LlmKeysService);
  const locations = (body: { errors?: Array<{ location: string }> }) => (body.errors ?? []).map((e) => e.location);

  beforeAll(async () => {
    env = getEnv();
    admin = env.adminKey;
    const user = await call('POST', '/api/v1/users', { key: admin, body: { name: `tenant-${Date.now()}` } });
    expect(user.status).toBe(201);
    other = { id: user.body.id, key: user.body.key.key };
    const created = await call('POST', '/api/v1/keys', { key: admin, body: { name: 'scoped', scopes: ['extract', 'crawl', 'jobs'] } });
    scoped = created.body.key;
  });

  describe('access', () => {
    it.each([
      ['GET', '/api/v1/llm/keys', undefined],
      ['PUT', '/api/v1/llm/keys', { provider: 'openai', is_enabled: true }],
      ['DELETE', '/api/v1/llm/keys/01JD0000000000000000000000', undefined],
      ['GET', '/api/v1/llm/providers', undefined],
      ['GET', '/api/v1/llm/models/openai', undefined],
      ['GET', '/api/v1/llm/chain', undefined],
      ['PUT', '/api/v1/llm/chain', { chain: [] }],
    ])('%s %s needs a full-access key (401 without, 403 scoped)', async (method, path, body) => {
      expect((await call(method, path, { body })).status).toBe(401);
      const denied = await call(method, path, { key: scoped, body });
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ type: '/problems/insufficient-scope' });
    });

    it('documents every route in the OpenAPI document under the LLM tag with bearer auth', async () => {
      const doc = (await call('GET', '/api/v1/openapi.json')).body;
      const paths = [
        '/api/v1/llm/keys',
        '/api/v1/llm/keys/{id}',
        '/api/v1/llm/providers',
        '/api/v1/llm/models/{provider}',
        '/api/v1/llm/chain',
      ];
      for (const path of paths) {
        expect(doc.paths[path]).toBeDefined();
        for (const operation of Object.values<{ tags: string[]; security: unknown[] }>(doc.paths[path])) {
          expect(operation.tags).toEqual(['LLM']);
          expect(operation.security).toEqual([{ bearer: [] }]);
        }
      }
      expect(doc.components.schemas.PutProviderKeyDto.properties.api_key.writeOnly).toBe(true);
      expect(doc.components.schemas.ChainEntryDto.properties.max_tokens).toMatchObject({ minimum: 1, maximum: 200000, default: 4096 });
    });
  });

  describe('provider keys', () => {
    let openaiId: string;

    it('starts empty', async () => {
      const res = await call('GET', '/api/v1/llm/keys', { key: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ keys: [] });
    });

    it('creates a record (200) with exactly the api.md fields and never the key', async () => {
      const res = await call('PUT', '/api/v1/llm/keys', {
        key: admin,
        body: { provider: 'openai', is_enabled: true, api_key: OPENAI_KEY },
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(RECORD_FIELDS);
      expect(res.body).toMatchObject({ provider: 'openai', base_url: null, has_key: true, is_enabled: true });
      expect(res.body.id).toHaveLength(26);
      expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(res.text).not.toContain(OPENAI_KEY);
      openaiId = res.body.id;
      await expect(keysService().resolveKey((await whoAmI()).userId, 'openai')).resolves.toEqual({
        apiKey: OPENAI_KEY,
        isEnabled: true,
      });
    });

    async function whoAmI(): Promise<{ userId: string }> {
      const users = await call('GET', '/api/v1/users', { key: admin });
      return { userId: users.body.users.find((u: { is_admin: boolean }) => u.is_admin).id };
    }

    it('updates the one record per provider (200, same id); an empty or absent api_key keeps the stored key', async () => {
      const userId = (await whoAmI()).userId;
      const blank = await call('PUT', '/api/v1/llm/keys', {
        key: admin,
        body: { provider: 'openai', is_enabled: false, api_key: '', base_url: 'https://gateway.example.com/openai/v1' },
      });
      expect(blank.status).toBe(200);
      expect(blank.body).toMatchObject({
        id: openaiId,
        has_key: true,
        is_enabled: false,
        base_url: 'https://gateway.example.com/openai/v1',
      });
      expect(blank.body.updated_at >= blank.body.created_at).toBe(true);
      await expect(keysService().resolveKey(userId, 'openai')).resolves.toEqual({
        apiKey: OPENAI_KEY,
        baseUrl: 'https://gateway.example.com/openai/v1',
        isEnabled: false,
      });

      const absent = await call('PUT', '/api/v1/llm/keys', { key: admin, body: { provider: 'openai', is_enabled: true } });
      expect(absent.body).toMatchObject({
        id: openaiId,
        has_key: true,
        is_enabled: true,
        base_url: 'https://gateway.example.com/openai/v1',
      });
      const reset = await call('PUT', '/api/v1/llm/keys', { key: admin, body: { provider: 'openai', is_enabled: true, base_url: null } });
      expect(reset.body).toMatchObject({ id: openaiId, base_url: null, has_key: true });
      await expect(keysService().resolveKey(userId, 'openai')).resolves.toEqual({ apiKey: OPENAI_KEY, isEnabled: true });

      const listed = await call('GET', '/api/v1/llm/keys', { key: admin });
      expect(listed.body.keys).toHaveLength(1);
      expect(listed.text).not.toContain(OPENAI_KEY);
    });

    it('replaces the key when a new one is given, and stores a keyless ollama with a custom base_url', async () => {
      const userId = (await whoAmI()).userId;
      await call('PUT', '/api/v1/llm/keys', {
        key: admin,
        body: { provider: 'anthropic', is_enabled: true, api_key: 'sk-ant-first-0000000000' },
      });
      const replaced = await call('PUT', '/api/v1/llm/keys', {
        key: admin,
        body: { provider: 'anthropic', is_enabled: true, api_key: ANTHROPIC_KEY },
      });
      expect(replaced.status).toBe(200);
      expect((await keysService().resolveKey(userId, 'anthropic'))?.apiKey).toBe(ANTHROPIC_KEY);

      const ollama = await call('PUT', '/api/v1/llm/keys', {
        key: admin,
        body: { provider: 'ollama', is_enabled: true, base_url: 'http://127.0.0.1:11434' },
      });
      expect(ollama.status).toBe(200);
      expect(ollama.body).toMatchObject({ provider: 'ollama', has_key: false, base_url: 'http://127.0.0.1:11434' });
      await expect(keysService().resolveKey(userId, 'ollama')).resolves.toEqual({ baseUrl: 'http://127.0.0.1:11434', isEnabled: true });
      await expect(keysService().resolveKey(userId, 'openrouter')).resolves.toBeNull();
      const listed = await call('GET', '/api/v1/llm/keys', { key: admin });
      expect(listed.body.keys.map((k: { provider: string }) => k.provider).sort()).toEqual(['anthropic', 'ollama', 'openai']);
    });

    it.each([
      ['a missing provider', { is_enabled: true }, ['body.provider']],
      ['a missing is_enabled', { provider: 'openai' }, ['body.is_enabled']],
      ['an unknown provider', { provider: 'mistral', is_enabled: true }, ['body.provider']],
      ['a non-boolean is_enabled', { provider: 'openai', is_enabled: 'yes' }, ['body.is_enabled']],
      ['an unknown field', { provider: 'openai', is_enabled: true, extra: 1 }, ['body.extra']],
      ['a non-string base_url', { provider: 'openai', is_enabled: true, base_url: 42 }, ['body.base_url']],
      ['an ftp base_url', { provider: 'openai', is_enabled: true, base_url: 'ftp://files.example.com' }, ['body.base_url']],
      ['a file base_url', { provider: 'openai', is_enabled: true, base_url: 'file:///etc/passwd' }, ['body.base_url']],
      ['a javascript base_url', { provider: 'openai', is_enabled: true, base_url: 'javascript:alert(1)' }, ['body.base_url']],
      ['a relative base_url', { provider: 'openai', is_enabled: true, base_url: 'api.example.com' }, ['body.base_url']],
      ['a base_url outside the URL pattern', { provider: 'openai', is_enabled: true, base_url: '©z' }, ['body.base_url']],
      [
        'a base_url over 2048 characters',
        { provider: 'openai', is_enabled: true, base_url: `https://example.com/${'a'.repeat(2050)}` },
        ['body.base_url'],
      ],
      ['a non-string api_key', { provider: 'openai', is_enabled: true, api_key: 12345 }, ['body.api_key']],
    ])('rejects %s with 422 at %j', async (_name, body, expected) => {
      const res = await call('PUT', '/api/v1/llm/keys', { key: admin, body });
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      // Every rule of this operation is stated by the OpenAPI document: the schema-mismatch detail.
      expect(res.body).toMatchObject({ type: '/problems/validation-error', status: 422, detail: SCHEMA_MISMATCH_DETAIL });
      expect(locations(res.body)).toEqual(expected);
    });

    it('states the base_url rule in the OpenAPI document: empty, or the URL pattern without a fragment', async () => {
      const doc = (await call('GET', '/api/v1/openapi.json', { key: admin })).body;
      const body = doc.paths['/api/v1/llm/keys'].put.requestBody.content['application/json'].schema;
      const schema = doc.components.schemas[body.$ref.split('/').pop()].properties.base_url;
      expect(schema).toMatchObject({ type: ['string', 'null'], maxLength: 2048, pattern: EMPTY_OR_HTTP_URL_NO_FRAGMENT_PATTERN.source });
      expect(new RegExp(schema.pattern).test('©z')).toBe(false);
      expect(new RegExp(schema.pattern).test('https://gateway.example.com/openai/v1')).toBe(true);
      const llmConfig = doc.components.schemas.LlmConfigDto.properties.base_url;
      expect(llmConfig).toMatchObject({ type: 'string', maxLength: 2048, pattern: HTTP_URL_NO_FRAGMENT_PATTERN.source });
    });

    it('never echoes a rejected key or credentials in a base_url', async () => {
      const badKey = 'sk-has a space-SecretValue0123456789';
      const res = await call('PUT', '/api/v1/llm/keys', {
        key: admin,
        body: { provider: 'openai', is_enabled: true, api_key: badKey, base_url: 'https://user:Pa55w0rdSecret@example.com/v1' },
      });
      expect(res.status).toBe(422);
      expect(locations(res.body).sort()).toEqual(['body.api_key', 'body.base_url']);
      expect(res.text).not.toContain('SecretValue');
      expect(res.text).not.toContain('Pa55w0rdSecret');
      const long = await call('PUT', '/api/v1/llm/keys', {
        key: admin,
        body: { provider: 'openai', is_enabled: true, api_key: 'k'.repeat(5000) },
      });
      expect(long.status).toBe(422);
      expect(long.text).not.toContain('k'.repeat(100));
      // Nothing was changed by the rejected requests.
      expect((await keysService().resolveKey((await whoAmI()).userId, 'openai'))?.apiKey).toBe(OPENAI_KEY);
    });

    it("isolates tenants: another user's id is a 404 and their keys are separate", async () => {
      const theirs = await call('PUT', '/api/v1/llm/keys', {
        key: other.key,
        body: { provider: 'openrouter', is_enabled: true, api_key: OTHER_TENANT_KEY },
      });
      expect(theirs.status).toBe(200);
      expect((await call('GET', '/api/v1/llm/keys', { key: other.key })).body.keys).toHaveLength(1);
      const mine = await call('GET', '/api/v1/llm/keys', { key: admin });
      expect(mine.body.keys.map((k: { id: string }) => k.id)).not.toContain(theirs.body.id);

      const cross = await call('DELETE', `/api/v1/llm/keys/${theirs.body.id}`, { key: admin });
      expect(cross.status).toBe(404);
      expect(cross.body).toMatchObject({ type: '/problems/not-found' });
      expect((await call('GET', '/api/v1/llm/keys', { key: other.key })).body.keys).toHaveLength(1);
      await expect(keysService().resolveKey(other.id, 'openrouter')).resolves.toEqual({ apiKey: OTHER_TENANT_KEY, isEnabled: true });
      // The same provider for two users: two records, two keys.
      await call('PUT', '/api/v1/llm/keys', { key: other.key, body: { provider: 'openai', is_enabled: true } });
      await expect(keysService().resolveKey(other.id, 'openai')).resolves.toEqual({ isEnabled: true });
    });

    it('deletes a record ({success: true}); deleting again or an unknown id is a 404', async () => {
      const listed = await call('GET', '/api/v1/llm/keys', { key: admin });
      const ollama = listed.body.keys.find((k: { provider: string }) => k.provider === 'ollama');
      const res = await call('DELETE', `/api/v1/llm/keys/${ollama.id}`, { key: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      expect((await call('DELETE', `/api/v1/llm/keys/${ollama.id}`, { key: admin })).status).toBe(404);
      expect((await call('DELETE', '/api/v1/llm/keys/nope', { key: admin })).status).toBe(404);
      await expect(keysService().resolveKey((await whoAmI()).userId, 'ollama')).resolves.toBeNull();
    });

    it('stores only ciphertext', async () => {
      const records = await storedKeyRecords(env.app);
      const withKeys = records.filter((r) => r.api_key_sealed);
      expect(withKeys.length).toBeGreaterThanOrEqual(3);
      for (const record of withKeys) expect(record.api_key_sealed).toMatchObject({ v: 1, kid: expect.stringMatching(/^[0-9a-f]{8}$/) });
      const raw = JSON.stringify(records);
      for (const secret of ALL_SECRETS) expect(raw).not.toContain(secret);
    });
  });

  describe('providers and models', () => {
    it('lists the four providers with the caller’s key state', async () => {
      const res = await call('GET', '/api/v1/llm/providers', { key: admin });
      expect(res.status).toBe(200);
      expect(res.body.providers).toEqual([
        { name: 'openrouter', has_key: false, is_enabled: false, base_url_default: 'https://openrouter.ai/api/v1', requires_key: true },
        { name: 'anthropic', has_key: true, is_enabled: true, base_url_default: 'https://api.anthropic.com', requires_key: true },
        { name: 'openai', has_key: true, is_enabled: true, base_url_default: 'https://api.openai.com/v1', requires_key: true },
        { name: 'ollama', has_key: false, is_enabled: false, base_url_default: 'http://localhost:11434', requires_key: false },
      ]);
      const theirs = await call('GET', '/api/v1/llm/providers', { key: other.key });
      expect(theirs.body.providers.find((p: { name: string }) => p.name === 'openrouter')).toMatchObject({
        has_key: true,
        is_enabled: true,
      });
      expect(theirs.body.providers.find((p: { name: string }) => p.name === 'anthropic')).toMatchObject({ has_key: false });
    });

    it.each(['openai', 'anthropic', 'openrouter', 'ollama'])('lists the price-table models of %s', async (provider) => {
      const res = await call('GET', `/api/v1/llm/models/${provider}`, { key: admin });
      expect(res.status).toBe(200);
      expect(res.body.provider).toBe(provider);
      expect(res.body.models.length).toBeGreaterThan(0);
      for (const model of res.body.models) {
        expect(Object.keys(model).sort()).toEqual(['context_tokens', 'id', 'input_usd_per_mtok', 'output_usd_per_mtok']);
        expect(model.context_tokens).toBeGreaterThan(0);
      }
    });

    it('prices well-known models and 404s an unknown provider', async () => {
      const openai = await call('GET', '/api/v1/llm/models/openai', { key: admin });
      expect(openai.body.models).toContainEqual({
        id: 'gpt-4o-mini',
        context_tokens: 128000,
        input_usd_per_mtok: 0.15,
        output_usd_per_mtok: 0.6,
      });
      const missing = await call('GET', '/api/v1/llm/models/mistral', { key: admin });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ type: '/problems/not-found' });
    });
  });

  describe('fallback chain', () => {
    let firstIds: string[];

    it('starts empty', async () => {
      const res = await call('GET', '/api/v1/llm/chain', { key: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ chain: [] });
    });

    it('replaces the chain: 0-based positions in the given order, defaults, every api.md field', async () => {
      const res = await call('PUT', '/api/v1/llm/chain', {
        key: admin,
        body: {
          chain: [
            { provider: 'openrouter', model: 'openai/gpt-4o-mini' },
            { provider: 'anthropic', model: 'claude-haiku-4-5', is_enabled: false, max_tokens: 1024, temperature: 0.7 },
            { provider: 'ollama', model: 'llama3.1:8b', max_tokens: 200000, temperature: 2 },
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.chain).toHaveLength(3);
      for (const entry of res.body.chain) expect(Object.keys(entry).sort()).toEqual(CHAIN_FIELDS);
      expect(res.body.chain.map((e: { position: number }) => e.position)).toEqual([0, 1, 2]);
      expect(res.body.chain[0]).toMatchObject({
        provider: 'openrouter',
        model: 'openai/gpt-4o-mini',
        is_enabled: true,
        max_tokens: 4096,
        temperature: 0,
      });
      expect(res.body.chain[1]).toMatchObject({ is_enabled: false, max_tokens: 1024, temperature: 0.7 });
      expect(res.body.chain[2]).toMatchObject({ max_tokens: 200000, temperature: 2 });
      firstIds = res.body.chain.map((e: { id: string }) => e.id);
      expect((await call('GET', '/api/v1/llm/chain', { key: admin })).body).toEqual(res.body);
    });

    it('keeps ids and created_at of pairs that stay, new ids for new pairs', async () => {
      const before = (await call('GET', '/api/v1/llm/chain', { key: admin })).body.chain;
      const res = await call('PUT', '/api/v1/llm/chain', {
        key: admin,
        body: {
          chain: [
            { provider: 'ollama', model: 'llama3.1:8b' },
            { provider: 'openai', model: 'gpt-4.1-mini' },
            { provider: 'openrouter', model: 'openai/gpt-4o-mini' },
          ],
        },
      });
      expect(res.status).toBe(200);
      const [ollama, openai, openrouter] = res.body.chain;
      expect(ollama).toMatchObject({ id: firstIds[2], position: 0, created_at: before[2].created_at, max_tokens: 4096 });
      expect(openrouter).toMatchObject({ id: firstIds[0], position: 2, created_at: before[0].created_at });
      expect(firstIds).not.toContain(openai.id);
      expect(res.body.chain.map((e: { id: string }) => e.id)).not.toContain(firstIds[1]);
    });

    it('keeps chains per tenant', async () => {
      expect((await call('GET', '/api/v1/llm/chain', { key: other.key })).body).toEqual({ chain: [] });
      const theirs = await call('PUT', '/api/v1/llm/chain', { key: other.key, body: { chain: [{ provider: 'openai', model: 'gpt-4o' }] } });
      expect(theirs.status).toBe(200);
      expect((await call('GET', '/api/v1/llm/chain', { key: admin })).body.chain).toHaveLength(3);
    });

    const entry = (extra: Record<string, unknown> = {}) => ({ provider: 'openai', model: 'gpt-4o', ...extra });
    const padded = (bad: Record<string, unknown>) => [
      entry({ model: 'a' }),
      entry({ model: 'b' }),
      entry({ model: 'c' }),
      { provider: 'openai', model: 'd', ...bad },
    ];
    it.each([
      ['a missing chain', {}, ['body.chain']],
      ['a non-array chain', { chain: 'openai' }, ['body.chain']],
      ['21 entries', { chain: Array.from({ length: 21 }, (_, i) => entry({ model: `m${i}` })) }, ['body.chain']],
      ['max_tokens 0', { chain: padded({ max_tokens: 0 }) }, ['body.chain[3].max_tokens']],
      ['max_tokens 200001', { chain: padded({ max_tokens: 200001 }) }, ['body.chain[3].max_tokens']],
      ['max_tokens 1.5', { chain: padded({ max_tokens: 1.5 }) }, ['body.chain[3].max_tokens']],
      ['temperature 2.5', { chain: padded({ temperature: 2.5 }) }, ['body.chain[3].temperature']],
      ['temperature -0.1', { chain: padded({ temperature: -0.1 }) }, ['body.chain[3].temperature']],
      ['temperature "0"', { chain: padded({ temperature: '0' }) }, ['body.chain[3].temperature']],
      ['an unknown provider', { chain: [entry({ provider: 'mistral' })] }, ['body.chain[0].provider']],
      ['an empty model', { chain: [entry({ model: '' })] }, ['body.chain[0].model']],
      ['a blank model', { chain: [entry({ model: '   ' })] }, ['body.chain[0].model']],
      ['a 201-char model', { chain: [entry({ model: 'm'.repeat(201) })] }, ['body.chain[0].model']],
      ['is_enabled "yes"', { chain: [entry({ is_enabled: 'yes' })] }, ['body.chain[0].is_enabled']],
      ['an unknown entry field', { chain: [entry({ priority: 1 })] }, ['body.chain[0].priority']],
      ['a duplicate pair', { chain: [entry(), entry({ provider: 'anthropic' }), entry()] }, ['body.chain[2]']],
    ])('rejects %s with 422 at the right location', async (_name, body, expected) => {
      const res = await call('PUT', '/api/v1/llm/chain', { key: admin, body });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ type: '/problems/validation-error' });
      expect([...new Set(locations(res.body))]).toEqual(expected);
    });

    it('accepts exactly 20 entries, and [] clears the chain', async () => {
      const twenty = await call('PUT', '/api/v1/llm/chain', {
        key: admin,
        body: { chain: Array.from({ length: 20 }, (_, i) => entry({ model: `m${i}` })) },
      });
      expect(twenty.status).toBe(200);
      expect(twenty.body.chain[19].position).toBe(19);
      const cleared = await call('PUT', '/api/v1/llm/chain', { key: admin, body: { chain: [] } });
      expect(cleared.body).toEqual({ chain: [] });
      expect((await call('GET', '/api/v1/llm/chain', { key: admin })).body).toEqual({ chain: [] });
    });
  });

  it('never wrote a provider key to the logs', () => {
    expect(env.logs.text.length).toBeGreaterThan(0);
    expect(env.logs.text).toContain('llm provider key saved');
    for (const secret of [...ALL_SECRETS, 'SecretValue', 'Pa55w0rdSecret']) expect(env.logs.text).not.toContain(secret);
  });
}

describe('LLM keys, providers, models and chain, embedded deployment', () => {
  let env: RunningApp;
  beforeAll(async () => {
    env = await startEmbedded({ GLEANER_RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(async () => env?.close());
  llmSuite(() => env);

  it('the SQLite files hold no plaintext key', () => {
    const files = ['gleaner.db', 'gleaner.db-wal'].map((f) => join(env.dataDir, f)).filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThan(0);
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(bytes.includes(Buffer.from('llm_provider_keys'))).toBe(true);
    for (const secret of ALL_SECRETS) expect(bytes.includes(Buffer.from(secret))).toBe(false);
  });
});

describeWith(['mongodb', 'redis'], 'LLM keys, providers, models and chain, cluster deployment (MongoDB + Redis)', () => {
  let env: RunningApp;
  beforeAll(async () => {
    env = await startEmbedded({
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_llm')}`,
      REDIS_URL: `${serverUrl('redis')}/6`,
      GLEANER_SECRET: 'llm-test-secret-0123456789abcdef-cluster',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'L'.repeat(40),
      GLEANER_RATE_LIMIT_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => env?.close());
  llmSuite(() => env);
});

describe('stored provider keys across restarts and secret rotation', () => {
  const dataDir = tempDir('gleaner-llm-restart-');
  const bootstrap = 'glk_' + 'K'.repeat(40);
  const secretA = 'rotation-secret-A-0123456789abcdefghij';
  const secretB = 'rotation-secret-B-0123456789abcdefghij';

  /** Like startEmbedded, plus the proposed GLEANER_PREVIOUS_SECRETS setting (not in AppConfig yet). */
  async function start(secret: string | undefined, previousSecrets?: string[]) {
    const config: LlmConfig = {
      ...loadConfig(
        { DATA_DIR: dataDir, HOST: '127.0.0.1', GLEANER_BOOTSTRAP_KEY: bootstrap, ...(secret ? { GLEANER_SECRET: secret } : {}) },
        'all',
      ),
      previousSecrets: previousSecrets ?? [],
    };
    const logs = new LogCapture();
    const { app } = await createApiApp(config, { destination: logs });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return { app, baseUrl, logs, keys: app.get(LlmKeysService) };
  }

  let userId: string;

  it('decrypts a stored key after a restart with the generated DATA_DIR secret', async () => {
    const first = await start(undefined);
    try {
      const res = await http(first.baseUrl, 'PUT', '/api/v1/llm/keys', {
        key: bootstrap,
        body: { provider: 'openai', is_enabled: true, api_key: OPENAI_KEY },
      });
      expect(res.status).toBe(200);
      userId = (await http(first.baseUrl, 'GET', '/api/v1/users', { key: bootstrap })).body.users[0].id;
      expect(first.logs.text).not.toContain(OPENAI_KEY);
    } finally {
      await first.app.close();
    }
    expect(readFileSync(join(dataDir, 'gleaner.db')).includes(Buffer.from(OPENAI_KEY))).toBe(false);
    const second = await start(undefined);
    try {
      await expect(second.keys.resolveKey(userId, 'openai')).resolves.toEqual({ apiKey: OPENAI_KEY, isEnabled: true });
    } finally {
      await second.app.close();
    }
  });

  it('rotates GLEANER_SECRET: previous secrets still decrypt, re-sealing moves every key to the new one', async () => {
    const generated = readFileSync(join(dataDir, 'secret'), 'utf8').trim();
    const a = await start(secretA, [generated]);
    try {
      await expect(a.keys.resolveKey(userId, 'openai')).resolves.toMatchObject({ apiKey: OPENAI_KEY });
      await http(a.baseUrl, 'PUT', '/api/v1/llm/keys', {
        key: bootstrap,
        body: { provider: 'anthropic', is_enabled: true, api_key: ANTHROPIC_KEY },
      });
    } finally {
      await a.app.close();
    }

    const b = await start(secretB, [secretA]);
    try {
      // Reading re-seals lazily; the start-up pass re-seals the rest in the background.
      await expect(b.keys.resolveKey(userId, 'anthropic')).resolves.toMatchObject({ apiKey: ANTHROPIC_KEY });
      await waitFor(async () => b.logs.text.includes('llm provider keys re-sealed with the current secret'));
      const kidB = new SecretBox({ current: secretB }).currentKid;
      const kids = (await storedKeyRecords(b.app)).map((r) => r.api_key_sealed?.kid);
      expect(kids).toEqual([kidB, kidB]);
      await expect(b.keys.resealAll()).resolves.toEqual({ resealed: 0, failed: 0 });
    } finally {
      await b.app.close();
    }

    const onlyB = await start(secretB);
    try {
      await expect(onlyB.keys.resolveKey(userId, 'openai')).resolves.toMatchObject({ apiKey: OPENAI_KEY });
      await expect(onlyB.keys.resolveKey(userId, 'anthropic')).resolves.toMatchObject({ apiKey: ANTHROPIC_KEY });
    } finally {
      await onlyB.app.close();
    }

    const wrong = await start('a-completely-different-secret-0123456789');
    try {
      const error = await wrong.keys.resolveKey(userId, 'openai').then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(/not configured.*GLEANER_PREVIOUS_SECRETS/);
      expect(error?.message).not.toContain(OPENAI_KEY);
      await expect(wrong.keys.resealAll()).resolves.toEqual({ resealed: 0, failed: 2 });
      expect(wrong.logs.text).toContain('cannot be opened for re-sealing');
      for (const secret of ALL_SECRETS) expect(wrong.logs.text).not.toContain(secret);
    } finally {
      await wrong.app.close();
    }
  });
});
