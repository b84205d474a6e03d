import type { SecretSealer } from '@app/core';
import type { LlmConfigInput } from '@app/llm';
import type { MonitorRecord } from './monitor.types';

/** The secrets sealed with a monitor (`{llm_api_key}`), opened (an unreadable envelope throws, as the sealer does). */
export function monitorSecrets(monitor: MonitorRecord, sealer: SecretSealer): Record<string, string> {
  return monitor.sealed_secrets ? (JSON.parse(sealer.open(monitor.sealed_secrets)) as Record<string, string>) : {};
}

/** The monitor's llm_config as a request would give it (its sealed key opened), or undefined: the owner's stored keys and chain. */
export function monitorLlm(monitor: MonitorRecord, sealer: SecretSealer): LlmConfigInput | undefined {
  if (!monitor.llm_config) return undefined;
  const { byok_key: _byok, ...rest } = monitor.llm_config;
  const secrets = monitorSecrets(monitor, sealer);
  return { ...(rest as unknown as LlmConfigInput), ...(secrets.llm_api_key ? { api_key: secrets.llm_api_key } : {}) };
}
