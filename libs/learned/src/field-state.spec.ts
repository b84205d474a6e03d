import { resolveLearnedConfig } from './config';
import { activate, checkField, newFieldState, ruleKey, startVerifying, verifyField } from './field-state';
import type { FieldRule } from './program';

const rule: FieldRule = { field: 'title', selector: 'h1', pick: 'first', source: { kind: 'text' }, steps: [], parse: 'string' };

describe('field state', () => {
  it('accepts a rule after verifyPages agreeing pages and rejects it at the first disagreement (acceptAgreement 1)', () => {
    const config = resolveLearnedConfig({ verifyPages: 3 });
    const state = newFieldState();
    startVerifying(state, rule);
    expect([verifyField(state, true, config), verifyField(state, true, config), verifyField(state, true, config)]).toEqual([
      'pending',
      'pending',
      'accepted',
    ]);
    startVerifying(state, rule);
    expect(state.verification).toEqual({ pages: 0, agreeing: 0 });
    expect([verifyField(state, true, config), verifyField(state, false, config)]).toEqual(['pending', 'rejected']);
  });

  it('tolerates as many disagreeing verification pages as acceptAgreement allows, and needs verifyPages agreeing ones', () => {
    const config = resolveLearnedConfig({ verifyPages: 5, acceptAgreement: 0.8 });
    const state = newFieldState();
    startVerifying(state, rule);
    const verdicts = [true, false, true, true, true, true].map((agreed) => verifyField(state, agreed, config));
    expect(verdicts).toEqual(['pending', 'pending', 'pending', 'pending', 'pending', 'accepted']);
    startVerifying(state, rule);
    expect([false, false].map((agreed) => verifyField(state, agreed, config))).toEqual(['pending', 'rejected']);
  });

  it('counts the disagreements among the latest retireWindow checks of an accepted rule', () => {
    const config = resolveLearnedConfig({ retireWindow: 3, retireAfter: 2 });
    const state = newFieldState();
    startVerifying(state, rule);
    activate(state, true);
    expect(state).toMatchObject({ phase: 'active', always_filled: true, checks: { total: 0, disagreeing: 0, recent: [] } });
    expect([true, false, false, false, true].map((disagreed) => checkField(state, disagreed, config))).toEqual([1, 1, 1, 0, 1]);
    expect(state.checks).toEqual({ total: 5, disagreeing: 2, recent: [false, false, true] });
  });

  it('keys rules by their content, and tells "always empty" and "none yet" apart', () => {
    expect(ruleKey(rule)).toMatch(/^[0-9a-f]{16}$/);
    expect(ruleKey({ ...rule })).toBe(ruleKey(rule));
    expect(ruleKey({ ...rule, parentLabel: 'By:' })).not.toBe(ruleKey(rule));
    expect([ruleKey(null), ruleKey(undefined)]).toEqual(['empty', 'none']);
  });
});
