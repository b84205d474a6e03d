import { CliUsageError } from './errors';
import type { CliContext } from './context';

/** The options extract and crawl share, as the service's request fields. */
export interface ModelOptions {
  model?: string;
  modelKey?: string;
  modelBaseUrl?: string;
}

export const EXTRACTION_MODES = ['model', 'auto'] as const;
/** The service's `provenance` and `grounding` values (docs/provenance.md). */
export const PROVENANCE_MODES = ['off', 'summary', 'full'] as const;
export const GROUNDING_POLICIES = ['report', 'null_ungrounded', 'fail_page'] as const;

/** `--provenance` and `--grounding`, as the request fields (absent: the site's, then the service's defaults). */
export interface ProvenanceOptions {
  provenance?: string;
  grounding?: string;
}

/**
 * `--model provider/model` (the model may itself contain slashes: openrouter/anthropic/claude-3.5-haiku)
 * with `--model-key` / GLEANER_MODEL_API_KEY (BYOK for this request only) and `--model-base-url` /
 * GLEANER_MODEL_BASE_URL → `llm_config`. Without --model: none (your stored chain is used).
 */
export function llmConfig(options: ModelOptions, ctx: CliContext): Record<string, string> | undefined {
  if (!options.model) {
    if (options.modelKey || options.modelBaseUrl) throw new CliUsageError('--model-key and --model-base-url need --model provider/model');
    return undefined;
  }
  const slash = options.model.indexOf('/');
  if (slash <= 0 || slash === options.model.length - 1) {
    throw new CliUsageError(`--model must be provider/model (e.g. openai/gpt-4o-mini), got "${options.model}"`);
  }
  const config: Record<string, string> = { provider: options.model.slice(0, slash), model: options.model.slice(slash + 1) };
  const key = options.modelKey ?? ctx.env.GLEANER_MODEL_API_KEY;
  const baseUrl = options.modelBaseUrl ?? ctx.env.GLEANER_MODEL_BASE_URL;
  if (key) config.api_key = key;
  if (baseUrl) config.base_url = baseUrl;
  return config;
}

/** Commander argument parser for counts: a whole number ≥ min. */
export function intParser(name: string, min: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new CliUsageError(`${name} must be a whole number ≥ ${min}, got "${value}"`);
    return n;
  };
}

export function numberParser(name: string, min: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min) throw new CliUsageError(`${name} must be a number ≥ ${min}, got "${value}"`);
    return n;
  };
}

/** Repeatable options collect into a list. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
