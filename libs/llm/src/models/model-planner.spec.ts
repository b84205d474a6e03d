import type { LlmChainService } from '../chain.service';
import type { LlmConfig } from '../llm-config';
import type { LlmKeysService } from '../provider-keys.service';
import { ModelPlanner } from './model-planner';

/** The request's llm_config: the caller's stored key for the provider is read only for what the request leaves out. */
describe('ModelPlanner with a request llm_config', () => {
  const stored = { apiKey: 'sk-stored', baseUrl: 'https://models.example/v1', isEnabled: true };
  let resolveKey: jest.Mock;
  let planner: ModelPlanner;

  beforeEach(() => {
    resolveKey = jest.fn().mockResolvedValue(stored);
    const config = { serverProviders: {} } as unknown as LlmConfig;
    planner = new ModelPlanner({ resolveKey } as unknown as LlmKeysService, {} as LlmChainService, config);
  });

  it('reads no stored key when the request gives both its key and its endpoint', async () => {
    const [target] = await planner.plan(
      { userId: 'u1' },
      { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-request', base_url: 'https://mine.example/v1' },
    );
    expect(resolveKey).not.toHaveBeenCalled();
    expect(target).toMatchObject({ apiKey: 'sk-request', baseUrl: 'https://mine.example/v1', isByok: true, source: 'request' });
  });

  it('takes the stored endpoint under the request key, and the stored key under the request endpoint', async () => {
    const [keyOnly] = await planner.plan({ userId: 'u1' }, { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-request' });
    expect(keyOnly).toMatchObject({ apiKey: 'sk-request', baseUrl: 'https://models.example/v1' });
    const [endpointOnly] = await planner.plan(
      { userId: 'u1' },
      { provider: 'openai', model: 'gpt-4o-mini', base_url: 'https://mine.example/v1' },
    );
    expect(endpointOnly).toMatchObject({ apiKey: 'sk-stored', baseUrl: 'https://mine.example/v1' });
    expect(resolveKey).toHaveBeenCalledTimes(2);
  });
});
