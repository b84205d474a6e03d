import { CHAIN_DEFAULTS, duplicateEntryErrors, planChain, type ChainEntry } from './chain-plan';

let counter = 0;
const makeId = () => `id-${++counter}`;
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';

describe('chain normalisation', () => {
  beforeEach(() => {
    counter = 0;
  });

  it('assigns 0-based positions in the given order and fills defaults', () => {
    const chain = planChain(
      [],
      [
        { provider: 'openai', model: 'gpt-4o-mini' },
        { provider: 'anthropic', model: ' claude-haiku-4-5 ', is_enabled: false, max_tokens: 1000, temperature: 0.5 },
        { provider: 'ollama', model: 'llama3.1', is_enabled: null, max_tokens: null, temperature: null },
      ],
      T0,
      makeId,
    );
    expect(chain.map((e) => e.position)).toEqual([0, 1, 2]);
    expect(chain[0]).toEqual({
      id: 'id-1',
      provider: 'openai',
      model: 'gpt-4o-mini',
      position: 0,
      ...CHAIN_DEFAULTS,
      created_at: T0,
      updated_at: T0,
    });
    expect(chain[1]).toMatchObject({ model: 'claude-haiku-4-5', is_enabled: false, max_tokens: 1000, temperature: 0.5 });
    expect(chain[2]).toMatchObject({ is_enabled: true, max_tokens: 4096, temperature: 0 });
    expect(CHAIN_DEFAULTS).toEqual({ is_enabled: true, max_tokens: 4096, temperature: 0 });
  });

  it('keeps id and created_at of pairs that stay, moves updated_at only on change, gives new pairs new ids', () => {
    const first = planChain(
      [],
      [
        { provider: 'openai', model: 'a' },
        { provider: 'openai', model: 'b' },
        { provider: 'openai', model: 'c' },
      ],
      T0,
      makeId,
    );
    const second = planChain(
      first,
      [
        { provider: 'openai', model: 'a' }, // same position, same fields
        { provider: 'openai', model: 'c' }, // moved up
        { provider: 'anthropic', model: 'b' }, // same model, other provider: a new entry
      ],
      T1,
      makeId,
    );
    expect(second[0]).toEqual({ ...first[0], updated_at: T0 });
    expect(second[1]).toMatchObject({ id: first[2].id, position: 1, created_at: T0, updated_at: T1 });
    expect(second[2]).toMatchObject({ id: 'id-4', provider: 'anthropic', created_at: T1, updated_at: T1 });
    expect(second.some((e: ChainEntry) => e.id === first[1].id)).toBe(false);
  });

  it('an empty input clears the chain', () => {
    expect(planChain(planChain([], [{ provider: 'openai', model: 'a' }], T0, makeId), [], T1, makeId)).toEqual([]);
  });

  it('reports duplicate provider and model pairs at their location', () => {
    expect(
      duplicateEntryErrors([
        { provider: 'openai', model: 'a' },
        { provider: 'anthropic', model: 'a' },
        { provider: 'openai', model: 'a ' },
      ]),
    ).toEqual([
      { location: 'body.chain[2]', message: expect.stringContaining('duplicates chain[0]'), value: { provider: 'openai', model: 'a ' } },
    ]);
  });
});
