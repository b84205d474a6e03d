import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import shipped from './price-table.json';
import { loadPriceTable, modelFamily, PriceTable, PriceTableError, validatePriceTableFile } from './price-table';
import { LLM_PROVIDERS } from './providers';

function writeJson(value: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gleaner-prices-')), 'prices.json');
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

describe('price table', () => {
  const table = loadPriceTable();

  it('ships a valid table with an as-of date and models for every provider', () => {
    expect(validatePriceTableFile(shipped)).toEqual([]);
    expect(table.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const provider of LLM_PROVIDERS) expect(table.list(provider).length).toBeGreaterThan(0);
    const openai = table.list('openai').map((m) => m.id);
    expect(openai).toEqual(expect.arrayContaining(['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'o4-mini']));
    expect(table.list('openrouter').map((m) => m.id)).toEqual(expect.arrayContaining(['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4']));
    expect(table.list('ollama').every((m) => m.input_usd_per_mtok === 0 && m.output_usd_per_mtok === 0)).toBe(true);
  });

  it('prices known models and computes cost in USD', () => {
    expect(table.price('openai', 'gpt-4o-mini')).toEqual({ context_tokens: 128000, input_usd_per_mtok: 0.15, output_usd_per_mtok: 0.6 });
    expect(table.cost('openai', 'gpt-4o-mini', 1_000_000, 1_000_000)).toBeCloseTo(0.75, 9);
    expect(table.cost('openai', 'gpt-4o', 1234, 567)).toBe(0.008755);
    expect(table.cost('ollama', 'llama3.1', 10_000, 10_000)).toBe(0);
    expect(table.cost('openai', 'gpt-4o', 0, 0)).toBe(0);
  });

  it('returns null (not 0) for unknown models', () => {
    expect(table.price('openai', 'gpt-unknown')).toBeNull();
    expect(table.cost('openai', 'gpt-unknown', 100, 100)).toBeNull();
    // A model is priced per provider: an OpenRouter id is not an OpenAI id.
    expect(table.price('openai', 'openai/gpt-4o')).toBeNull();
  });

  it('finds dated snapshots, aliases and Ollama tags through the model family', () => {
    expect(modelFamily('claude-sonnet-4-20250514')).toBe('claude-sonnet-4');
    expect(modelFamily('claude-sonnet-4-0')).toBe('claude-sonnet-4');
    expect(modelFamily('claude-3-5-haiku-latest')).toBe('claude-3-5-haiku');
    expect(modelFamily('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(modelFamily('llama3.1:8b')).toBe('llama3.1');
    expect(table.price('anthropic', 'claude-sonnet-4-0')?.input_usd_per_mtok).toBe(3);
    expect(table.price('anthropic', 'claude-3-5-haiku-latest')?.input_usd_per_mtok).toBe(0.8);
    expect(table.price('anthropic', 'claude-haiku-4-5')?.input_usd_per_mtok).toBe(1);
    expect(table.price('anthropic', 'claude-opus-4-1')?.output_usd_per_mtok).toBe(75);
    expect(table.price('openai', 'gpt-4o-2024-08-06')?.input_usd_per_mtok).toBe(2.5);
    expect(table.price('ollama', 'qwen2.5:14b')?.context_tokens).toBe(32768);
  });

  it('does not guess when a family is ambiguous', () => {
    const t = PriceTable.fromFiles([
      {
        source: 'test',
        doc: {
          providers: {
            openai: {
              'm-2024-01-01': { context_tokens: 1, input_usd_per_mtok: 1, output_usd_per_mtok: 1 },
              'm-2025-01-01': { context_tokens: 1, input_usd_per_mtok: 2, output_usd_per_mtok: 2 },
            },
          },
        },
      },
    ]);
    expect(t.price('openai', 'm')).toBeNull();
    expect(t.price('openai', 'm-2025-01-01')?.input_usd_per_mtok).toBe(2);
  });

  it('merges an override file over the shipped table: replace, add, remove', () => {
    const file = writeJson({
      as_of: '2030-01-01',
      providers: {
        openai: {
          'gpt-4o': { context_tokens: 128000, input_usd_per_mtok: 1, output_usd_per_mtok: 2 },
          'gpt-4o-mini': null,
          'my-finetune': { context_tokens: 16000, input_usd_per_mtok: 3, output_usd_per_mtok: 12 },
        },
      },
    });
    const merged = loadPriceTable(file);
    expect(merged.asOf).toBe('2030-01-01');
    expect(merged.price('openai', 'gpt-4o')?.input_usd_per_mtok).toBe(1);
    expect(merged.price('openai', 'gpt-4o-mini')).toBeNull();
    expect(merged.price('openai', 'my-finetune')?.output_usd_per_mtok).toBe(12);
    expect(merged.price('anthropic', 'claude-sonnet-4-20250514')?.input_usd_per_mtok).toBe(3);
  });

  it('rejects an invalid override listing every problem', () => {
    const file = writeJson({
      currency: 'EUR',
      extra: 1,
      providers: {
        mistral: {},
        openai: { 'gpt-4o': { context_tokens: 0, input_usd_per_mtok: -1, output_usd_per_mtok: 'x', speed: 1 } },
      },
    });
    let error: PriceTableError | undefined;
    try {
      loadPriceTable(file);
    } catch (e) {
      error = e as PriceTableError;
    }
    expect(error).toBeInstanceOf(PriceTableError);
    expect(error!.problems).toEqual(
      expect.arrayContaining([
        'currency: only USD is supported',
        'extra: unknown field',
        expect.stringContaining('providers.mistral: unknown provider'),
        expect.stringContaining('context_tokens: must be an integer'),
        expect.stringContaining('input_usd_per_mtok: must be a number'),
        expect.stringContaining('output_usd_per_mtok: must be a number'),
        expect.stringContaining('speed: unknown field'),
      ]),
    );
  });

  it('rejects an unreadable or non-JSON override file', () => {
    expect(() => loadPriceTable(writeJson('{ not json'))).toThrow(PriceTableError);
    expect(() => loadPriceTable('/nonexistent/prices.json')).toThrow(/cannot be read as JSON/);
  });
});
