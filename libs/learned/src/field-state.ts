import { createHash } from 'node:crypto';
import type { LearnedConfig } from './config';
import type { FieldRule } from './program';

/** Where one field of a template stands: its rule is learned, verified and used on its own (docs/learned-extraction.md). */
export type FieldPhase = 'learning' | 'verifying' | 'active';

/** One field's state, as plain JSON (part of the template's stored state). */
export interface FieldState {
  phase: FieldPhase;
  /**
   * The rule being verified (`verifying`) or in use (`active`). `null`: the model left the field empty on every
   * learning page, so the rule is "always empty"; absent while learning.
   */
  rule?: FieldRule | null;
  /** Comparisons of the current rule with the model while it is verified. */
  verification: { pages: number; agreeing: number };
  /** Checks of the accepted rule (spot checks, guards, re-verifications); `recent`: the latest (true = disagreed). */
  checks: { total: number; disagreeing: number; recent: boolean[] };
  /** The field had a value on every page the rule was learned and verified on: an empty value sends it to the model. */
  always_filled: boolean;
  /** Pages on which the accepted rule filled the field. */
  pages_extracted: number;
  /**
   * The model agreed with a value of the accepted rule that grounding does not find on the page: the rule reads a
   * form the normaliser does not know, so its ungrounded values no longer send the field to the model.
   */
  ungrounded_confirmed?: boolean;
  /** Why the last learning attempt found no rule. */
  failure?: string;
}

export function newFieldState(): FieldState {
  return {
    phase: 'learning',
    verification: { pages: 0, agreeing: 0 },
    checks: { total: 0, disagreeing: 0, recent: [] },
    always_filled: false,
    pages_extracted: 0,
  };
}

/** A rule's identity (trust is kept per rule): `empty` for the always-empty rule. */
export function ruleKey(rule: FieldRule | null | undefined): string {
  if (rule === undefined) return 'none';
  if (rule === null) return 'empty';
  return createHash('sha256').update(JSON.stringify(rule)).digest('hex').slice(0, 16);
}

/** A freshly learned rule: verified from scratch. */
export function startVerifying(state: FieldState, rule: FieldRule | null): void {
  state.phase = 'verifying';
  state.rule = rule;
  state.verification = { pages: 0, agreeing: 0 };
  delete state.failure;
}

export function backToLearning(state: FieldState): void {
  state.phase = 'learning';
  delete state.rule;
  state.verification = { pages: 0, agreeing: 0 };
}

/**
 * A verification page of the field: `accepted` after `verifyPages` agreeing pages, `rejected` at the first page too
 * many that disagrees (`acceptAgreement` of `verifyPages` may disagree; 1 means none), `pending` otherwise.
 */
export function verifyField(state: FieldState, agreed: boolean, config: LearnedConfig): 'accepted' | 'rejected' | 'pending' {
  state.verification.pages++;
  if (agreed) state.verification.agreeing++;
  const allowed = Math.floor((1 - config.acceptAgreement) * config.verifyPages + 1e-9);
  if (state.verification.pages - state.verification.agreeing > allowed) return 'rejected';
  return state.verification.agreeing >= config.verifyPages ? 'accepted' : 'pending';
}

export function activate(state: FieldState, alwaysFilled: boolean): void {
  state.phase = 'active';
  state.checks = { total: 0, disagreeing: 0, recent: [] };
  state.always_filled = alwaysFilled;
  state.pages_extracted = 0;
  delete state.ungrounded_confirmed;
}

/**
 * A check of the accepted rule. Returns how many of the field's latest `retireWindow` checks disagreed: the
 * template retires the rule when that reaches `retireAfter` (or when the page disagrees on enough fields at once).
 */
export function checkField(state: FieldState, disagreed: boolean, config: LearnedConfig): number {
  state.checks.total++;
  if (disagreed) state.checks.disagreeing++;
  state.checks.recent.push(disagreed);
  if (state.checks.recent.length > config.retireWindow) state.checks.recent.shift();
  return state.checks.recent.filter(Boolean).length;
}
