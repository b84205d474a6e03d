import { llmConfigFor, storedLlmConfigSchema, storeLlmConfig } from './stored-llm-config';

describe('stored llm_config', () => {
  const request = { provider: 'openai' as const, model: 'gpt-4o-mini', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-secret' };

  it('stores a request without its api_key, which travels as a secret, and puts the two back together for the worker', () => {
    const { stored, secrets } = storeLlmConfig(request);
    expect(stored).toEqual({ provider: 'openai', model: 'gpt-4o-mini', base_url: 'http://127.0.0.1:9/v1', byok_key: true });
    expect(JSON.stringify(stored)).not.toContain('sk-secret');
    expect(secrets).toEqual({ llm_api_key: 'sk-secret' });
    expect(llmConfigFor(stored, secrets)).toEqual(request);
  });

  it('without an api_key stores no secret, and without an llm_config stores null', () => {
    const { api_key: _key, ...keyless } = request;
    expect(storeLlmConfig(keyless)).toEqual({ stored: { ...keyless, byok_key: false }, secrets: {} });
    expect(storeLlmConfig(undefined)).toEqual({ stored: null, secrets: {} });
    expect(llmConfigFor(null, {})).toBeUndefined();
    expect(llmConfigFor({ ...keyless, byok_key: false }, {})).toEqual(keyless);
  });

  it('reads a stored copy whose absent fields came back from the store as null, and refuses an unknown provider', () => {
    const parsed = storedLlmConfigSchema.parse({
      provider: 'anthropic',
      model: 'm',
      base_url: null,
      max_tokens: null,
      temperature: 0,
      byok_key: false,
    });
    expect(parsed).toEqual({
      provider: 'anthropic',
      model: 'm',
      base_url: undefined,
      max_tokens: undefined,
      temperature: 0,
      byok_key: false,
    });
    expect(storedLlmConfigSchema.parse(null)).toBeNull();
    expect(() => storedLlmConfigSchema.parse({ provider: 'nobody', model: 'm', byok_key: false })).toThrow();
  });
});
