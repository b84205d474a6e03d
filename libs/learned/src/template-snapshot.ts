import type { LearnedConfig } from './config';
import type { DisagreementLog } from './disagreement-log';
import { parsePage } from './dom';
import { newFieldState, type FieldState } from './field-state';
import type { LearnFailure, LearningSample } from './learner';
import type { ExtractionProgram } from './program';
import { TemplateMachine, type FieldTrust, type MachineEvent, type RetiredProgram, type TemplatePhase } from './template-machine';
import type { LearnableField } from './values';

/** A machine's whole state as plain JSON (what the store keeps per template). */
export interface TemplateSnapshot {
  /** 2: rules learned, verified and retired per field. Absent: one program for every field (states stored before). */
  version?: 2;
  /** Derived from the fields (read by the API without restoring the machine). */
  phase: TemplatePhase;
  /** The accepted rules of the active fields (derived). */
  program: ExtractionProgram | null;
  fields?: Record<string, FieldState>;
  samples: Array<{ url: string; html: string; output: Record<string, unknown>; fields?: string[] }>;
  /** Derived: why the last learning attempt of each learning field found no rule. */
  last_failures: LearnFailure[];
  verification: { pages: number; agreeing: number };
  active: {
    pages: number;
    programPages: number;
    checks: number;
    disagreeingChecks: number;
    /** Absent in states stored before it existed. */
    byField?: Record<string, number>;
    /** States stored before rules were per field. */
    recentChecks?: boolean[];
  };
  /** Derived: the active fields that always had a value. */
  always_filled: string[];
  retired: RetiredProgram[];
  /** The latest events (at most 50). */
  events: MachineEvent[];
  /** Per consumer and field; states stored before rules were per field hold `{programId, agreeing}` per consumer (dropped on restore). */
  trust?: Record<string, Record<string, FieldTrust> | { programId: string; agreeing: number }>;
  disagreements?: DisagreementLog;
  programs?: ExtractionProgram[];
}

export function snapshotOf(machine: TemplateMachine): TemplateSnapshot {
  const program = machine.program ?? null;
  return {
    version: 2,
    phase: machine.phase,
    program,
    fields: structuredClone(machine.fieldStates),
    samples: machine.samples
      .filter((s) => s.html !== undefined)
      .map((s) => ({ url: s.page.url, html: s.html!, output: s.output, ...(s.fields ? { fields: [...s.fields] } : {}) })),
    last_failures: machine.lastFailures,
    verification: { ...machine.verification },
    active: { ...machine.active, byField: { ...machine.active.byField } },
    always_filled: machine.fields
      .filter((f) => machine.field(f.name).phase === 'active' && machine.field(f.name).always_filled)
      .map((f) => f.name),
    retired: machine.retired,
    events: machine.events.slice(-50),
    trust: structuredClone(machine.trust),
    disagreements: structuredClone(machine.disagreements),
    programs: [...machine.programs],
  };
}

export function restoreMachine(
  templateId: string,
  fields: LearnableField[],
  config: LearnedConfig,
  state: TemplateSnapshot,
): TemplateMachine {
  const machine = new TemplateMachine(templateId, fields, config);
  machine.fieldStates = fieldStatesOf(
    fields.map((f) => f.name),
    state,
  );
  // Parsed only when a learner needs them (most pages of a template never do).
  machine.samples = state.samples.map((s): LearningSample => {
    let page: LearningSample['page'] | undefined;
    return {
      get page() {
        return (page ??= parsePage(s.url, s.html));
      },
      output: s.output,
      html: s.html,
      ...(s.fields ? { fields: [...s.fields] } : {}),
    };
  });
  machine.verification = { ...state.verification };
  machine.active = {
    pages: state.active.pages,
    programPages: state.active.programPages,
    checks: state.active.checks,
    disagreeingChecks: state.active.disagreeingChecks,
    byField: { ...(state.active.byField ?? {}) },
  };
  machine.disagreements = { by_field: { ...(state.disagreements?.by_field ?? {}) }, recent: [...(state.disagreements?.recent ?? [])] };
  machine.retired = [...state.retired];
  machine.events = [...state.events];
  machine.programs = [...(state.programs ?? (state.program && state.phase === 'active' ? [state.program] : []))];
  // Trust kept per program before rules were per field does not say which rules agreed: those consumers verify again.
  machine.trust = structuredClone(
    Object.fromEntries(
      Object.entries(state.trust ?? {}).filter((entry): entry is [string, Record<string, FieldTrust>] => !('programId' in entry[1])),
    ),
  );
  return machine;
}

/**
 * Each field's state as stored. A state stored when the template had one program gives each field the template's
 * phase and its rule; a field the state does not know (cannot happen for one schema key) starts learning.
 */
export function fieldStatesOf(names: string[], state: TemplateSnapshot): Record<string, FieldState> {
  if (state.fields)
    return Object.fromEntries(names.map((name) => [name, state.fields![name] ? structuredClone(state.fields![name]) : newFieldState()]));
  const filled = new Set(state.always_filled);
  return Object.fromEntries(
    names.map((name): [string, FieldState] => {
      const field = newFieldState();
      if (state.phase === 'learning' || !state.program) return [name, field];
      field.phase = state.phase;
      field.rule = state.program.rules.find((r) => r.field === name) ?? null;
      field.verification = { ...state.verification };
      field.always_filled = filled.has(name);
      return [name, field];
    }),
  );
}
