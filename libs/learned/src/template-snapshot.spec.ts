import { resolveLearnedConfig } from './config';
import { makeProgram, type FieldRule } from './program';
import { fieldStatesOf, restoreMachine, snapshotOf, type TemplateSnapshot } from './template-snapshot';
import type { LearnableField } from './values';

const fields: LearnableField[] = [
  { name: 'title', kind: 'string', list: false, nullable: true, required: true },
  { name: 'price', kind: 'number', list: false, nullable: true, required: true },
];
const title: FieldRule = { field: 'title', selector: 'h1', pick: 'first', source: { kind: 'text' }, steps: [], parse: 'string' };
const legacy = (phase: TemplateSnapshot['phase']): TemplateSnapshot => ({
  phase,
  program: phase === 'learning' ? null : makeProgram([title]),
  samples: [],
  last_failures: [],
  verification: { pages: 2, agreeing: 2 },
  active: { pages: 0, programPages: 0, recentChecks: [], checks: 0, disagreeingChecks: 0 },
  always_filled: ['title'],
  retired: [],
  events: [],
  trust: { extracts: { programId: 'prg_old', agreeing: 5 } },
});

describe('template snapshots', () => {
  it('gives each field of a state stored with one program the template phase and its rule ("always empty" when the program had none)', () => {
    expect(fieldStatesOf(['title', 'price'], legacy('verifying'))).toMatchObject({
      title: { phase: 'verifying', rule: title, verification: { pages: 2, agreeing: 2 }, always_filled: true },
      price: { phase: 'verifying', rule: null, always_filled: false },
    });
    const learning = fieldStatesOf(['title', 'price'], legacy('learning'));
    expect(learning.title).toMatchObject({ phase: 'learning' });
    expect(learning.title.rule).toBeUndefined();
  });

  it('drops trust kept per program, and round-trips a per-field state', () => {
    const machine = restoreMachine('tpl_1', fields, resolveLearnedConfig(), legacy('active'));
    expect(machine.trust).toEqual({});
    expect(machine.program!.id).toBe(makeProgram([title]).id);
    machine.recordTrust('crawl:1', 'title', 'abc', true);
    const again = restoreMachine('tpl_1', fields, resolveLearnedConfig(), snapshotOf(machine));
    expect(snapshotOf(again)).toEqual(snapshotOf(machine));
    expect(snapshotOf(again)).toMatchObject({
      version: 2,
      phase: 'active',
      always_filled: ['title'],
      trust: { 'crawl:1': { title: { rule: 'abc', agreeing: 1 } } },
    });
  });
});
