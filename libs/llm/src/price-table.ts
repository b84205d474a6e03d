import { readFileSync } from 'node:fs';
import { roundUsd } from '@app/core';
import shipped from './price-table.json';
import { LLM_PROVIDERS, isLlmProvider, type LlmProvider } from './providers';

/** Price and size of one model. Prices are USD per million tokens. */
export interface ModelPrice {
  context_tokens: number;
  input_usd_per_mtok: number;
  output_usd_per_mtok: number;
}

export interface ModelListing extends ModelPrice {
  id: string;
}

/**
 * The price table file format (`price-table.json`, and the override file named by
 * GLEANER_PRICE_TABLE_FILE): `{ as_of?, currency?, notes?, providers: { <provider>: { <model id>: ModelPrice | null } } }`.
 * In an override, a model entry replaces the shipped one, a new id is added, and `null` removes a model.
 */
export interface PriceTableFile {
  as_of?: string;
  currency?: string;
  notes?: string;
  providers: Partial<Record<LlmProvider, Record<string, ModelPrice | null>>>;
}

export class PriceTableError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`Invalid price table ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PriceTableError';
  }
}

const MAX_PRICE = 100_000;
const MAX_CONTEXT = 100_000_000;

/** Checks the shape of a price table document; returns every problem at once. */
export function validatePriceTableFile(value: unknown): string[] {
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ['must be a JSON object'];
  const doc = value as Record<string, unknown>;
  for (const field of ['as_of', 'currency', 'notes']) {
    if (doc[field] !== undefined && typeof doc[field] !== 'string') problems.push(`${field}: must be a string`);
  }
  if (doc.currency !== undefined && doc.currency !== 'USD') problems.push('currency: only USD is supported');
  for (const field of Object.keys(doc)) {
    if (!['as_of', 'currency', 'notes', 'providers'].includes(field)) problems.push(`${field}: unknown field`);
  }
  const providers = doc.providers;
  if (typeof providers !== 'object' || providers === null || Array.isArray(providers)) {
    problems.push('providers: must be an object keyed by provider');
    return problems;
  }
  for (const [provider, models] of Object.entries(providers)) {
    if (!isLlmProvider(provider)) {
      problems.push(`providers.${provider}: unknown provider (one of ${LLM_PROVIDERS.join(', ')})`);
      continue;
    }
    if (typeof models !== 'object' || models === null || Array.isArray(models)) {
      problems.push(`providers.${provider}: must be an object keyed by model id`);
      continue;
    }
    for (const [model, price] of Object.entries(models as Record<string, unknown>)) {
      const at = `providers.${provider}["${model}"]`;
      if (model.trim() === '' || model.length > 200) problems.push(`${at}: model id must be 1 to 200 characters`);
      if (price === null) continue;
      if (typeof price !== 'object' || Array.isArray(price)) {
        problems.push(`${at}: must be an object or null`);
        continue;
      }
      const p = price as Record<string, unknown>;
      const ctx = p.context_tokens;
      if (typeof ctx !== 'number' || !Number.isInteger(ctx) || ctx < 1 || ctx > MAX_CONTEXT) {
        problems.push(`${at}.context_tokens: must be an integer from 1 to ${MAX_CONTEXT}`);
      }
      for (const field of ['input_usd_per_mtok', 'output_usd_per_mtok']) {
        const n = p[field];
        if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > MAX_PRICE) {
          problems.push(`${at}.${field}: must be a number from 0 to ${MAX_PRICE}`);
        }
      }
      for (const field of Object.keys(p)) {
        if (!['context_tokens', 'input_usd_per_mtok', 'output_usd_per_mtok'].includes(field))
          problems.push(`${at}.${field}: unknown field`);
      }
    }
  }
  return problems;
}

/**
 * The family of a model id, so that dated snapshots, `-latest`/`-0` aliases and Ollama tags find the
 * price of their model: `claude-sonnet-4-20250514`, `claude-sonnet-4-0` → `claude-sonnet-4`;
 * `gpt-4o-2024-08-06` → `gpt-4o`; `llama3.1:8b` → `llama3.1`.
 */
export function modelFamily(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/:[^/:]+$/, '')
    .replace(/-latest$/, '')
    .replace(/-\d{8}$/, '')
    .replace(/-\d{4}-\d{2}-\d{2}$/, '')
    .replace(/(-\d+)-0$/, '$1');
}

/**
 * Prices and context sizes per provider and model. Lookups try the exact id first, then the model's
 * family (see modelFamily); a family claimed by two different entries is ambiguous and not matched.
 */
export class PriceTable {
  private readonly exact = new Map<string, ModelPrice>();
  private readonly families = new Map<string, ModelPrice | null>();

  constructor(
    private readonly models: Record<LlmProvider, Record<string, ModelPrice>>,
    readonly asOf?: string,
  ) {
    for (const provider of LLM_PROVIDERS) {
      const entries = Object.entries(models[provider]);
      for (const [id, price] of entries) this.exact.set(`${provider}\n${id}`, price);
      // Canonical ids (id === family) own their family; other ids fill the gaps; a gap claimed twice is ambiguous.
      const canonical = new Set<string>();
      for (const [id, price] of entries) {
        if (modelFamily(id) !== id) continue;
        this.families.set(`${provider}\n${id}`, price);
        canonical.add(id);
      }
      for (const [id, price] of entries) {
        const family = modelFamily(id);
        if (family === id || canonical.has(family)) continue;
        const key = `${provider}\n${family}`;
        this.families.set(key, this.families.has(key) ? null : price);
      }
    }
  }

  /** Models of a provider, sorted by id. */
  list(provider: LlmProvider): ModelListing[] {
    return Object.entries(this.models[provider])
      .map(([id, price]) => ({ id, ...price }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Price of a model, or null when the table does not know it. */
  price(provider: LlmProvider, model: string): ModelPrice | null {
    return this.exact.get(`${provider}\n${model}`) ?? this.families.get(`${provider}\n${modelFamily(model)}`) ?? null;
  }

  /**
   * USD cost of one call, or null when the model is unknown to the table (the caller decides what an
   * unknown price means; it is never guessed as 0). Rounded to 1e-8 USD (roundUsd) to hide float noise.
   */
  cost(provider: LlmProvider, model: string, inputTokens: number, outputTokens: number): number | null {
    const price = this.price(provider, model);
    if (!price) return null;
    const usd = (Math.max(0, inputTokens) * price.input_usd_per_mtok + Math.max(0, outputTokens) * price.output_usd_per_mtok) / 1_000_000;
    return roundUsd(usd);
  }

  /** Builds a table from documents applied in order (shipped first, then overrides). */
  static fromFiles(files: Array<{ source: string; doc: unknown }>): PriceTable {
    const models = Object.fromEntries(LLM_PROVIDERS.map((p) => [p, {}])) as Record<LlmProvider, Record<string, ModelPrice>>;
    let asOf: string | undefined;
    for (const { source, doc } of files) {
      const problems = validatePriceTableFile(doc);
      if (problems.length > 0) throw new PriceTableError(source, problems);
      const file = doc as PriceTableFile;
      asOf = file.as_of ?? asOf;
      for (const [provider, entries] of Object.entries(file.providers) as Array<[LlmProvider, Record<string, ModelPrice | null>]>) {
        for (const [id, price] of Object.entries(entries)) {
          if (price === null) delete models[provider][id];
          else
            models[provider][id] = {
              context_tokens: price.context_tokens,
              input_usd_per_mtok: price.input_usd_per_mtok,
              output_usd_per_mtok: price.output_usd_per_mtok,
            };
        }
      }
    }
    return new PriceTable(models, asOf);
  }
}

/**
 * The shipped table, with the JSON file at `overrideFile` (GLEANER_PRICE_TABLE_FILE) merged over it.
 * Throws PriceTableError (every problem listed) when the file cannot be read or is invalid, so a bad
 * override stops the start instead of pricing silently wrong.
 */
export function loadPriceTable(overrideFile?: string): PriceTable {
  const files: Array<{ source: string; doc: unknown }> = [{ source: 'price-table.json (shipped)', doc: shipped }];
  if (overrideFile) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(overrideFile, 'utf8'));
    } catch (error) {
      throw new PriceTableError(overrideFile, [`cannot be read as JSON: ${(error as Error).message}`]);
    }
    files.push({ source: overrideFile, doc });
  }
  return PriceTable.fromFiles(files);
}
