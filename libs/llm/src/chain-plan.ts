import { newId, type FieldError } from '@app/core';
import type { LlmProvider } from './providers';

export const CHAIN_LIMITS = { maxEntries: 20, maxModelLength: 200, minMaxTokens: 1, maxMaxTokens: 200_000, maxTemperature: 2 } as const;
export const CHAIN_DEFAULTS = { is_enabled: true, max_tokens: 4096, temperature: 0 } as const;

/** One item of `PUT /llm/chain` after DTO validation (optional fields may be absent or null). */
export interface ChainEntryInput {
  provider: LlmProvider;
  model: string;
  is_enabled?: boolean | null;
  max_tokens?: number | null;
  temperature?: number | null;
}

/** A stored chain entry; `position` is 0-based and equals the entry's index in the chain. */
export interface ChainEntry {
  id: string;
  provider: LlmProvider;
  model: string;
  position: number;
  is_enabled: boolean;
  max_tokens: number;
  temperature: number;
  created_at: string;
  updated_at: string;
}

const identity = (e: { provider: string; model: string }) => `${e.provider}\n${e.model.trim()}`;

/** A (provider, model) pair may appear once: it is the entry's identity across replacements. */
export function duplicateEntryErrors(input: ChainEntryInput[]): FieldError[] {
  const first = new Map<string, number>();
  const errors: FieldError[] = [];
  input.forEach((entry, index) => {
    const key = identity(entry);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, index);
    else
      errors.push({
        location: `body.chain[${index}]`,
        message: `duplicates chain[${earlier}]: each provider and model pair may appear once`,
        value: { provider: entry.provider, model: entry.model },
      });
  });
  return errors;
}

/**
 * The chain that replaces `existing`: positions follow the given order (0-based), defaults fill
 * absent fields, and an entry whose (provider, model) was already in the chain keeps its id and
 * created_at (updated_at moves only when one of its fields changed). New pairs get new ids.
 */
export function planChain(existing: ChainEntry[], input: ChainEntryInput[], now: string, makeId: () => string = newId): ChainEntry[] {
  const previous = new Map(existing.map((entry) => [identity(entry), entry]));
  return input.map((item, position) => {
    const next = {
      provider: item.provider,
      model: item.model.trim(),
      position,
      is_enabled: item.is_enabled ?? CHAIN_DEFAULTS.is_enabled,
      max_tokens: item.max_tokens ?? CHAIN_DEFAULTS.max_tokens,
      temperature: item.temperature ?? CHAIN_DEFAULTS.temperature,
    };
    const kept = previous.get(identity(next));
    if (!kept) return { id: makeId(), ...next, created_at: now, updated_at: now };
    const changed =
      kept.position !== next.position ||
      kept.is_enabled !== next.is_enabled ||
      kept.max_tokens !== next.max_tokens ||
      kept.temperature !== next.temperature;
    return { id: kept.id, ...next, created_at: kept.created_at, updated_at: changed ? now : kept.updated_at };
  });
}
