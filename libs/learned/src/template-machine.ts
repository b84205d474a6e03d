import type { LearnedConfig } from './config';
import { parsePage } from './dom';
import { learnProgram, type LearnFailure, type LearningSample } from './learner';
import type { ExtractionProgram } from './program';
import { disagreeingFields, hasValue, type LearnableField } from './values';

export type TemplatePhase = 'learning' | 'verifying' | 'active';

/** What to do with the next page of a template. */
export type PagePlan =
  /** learning: the model extracts; the page becomes a learning sample. */
  | 'model'
  /** verifying: the model extracts (its output is the result) and the program runs beside it. */
  | 'verify'
  /**
   * active: unless its output fails the guards, the page takes its place in the count
   * (`takeActivePage`): the program extracts it, or, every `spotCheckEvery`-th page, the model
   * extracts it as a spot check and the program runs beside it.
   */
  | 'program';

/**
 * Why a page of an active template went to the model: a spot check, a guard (`schema`,
 * `empty-field`), or `reverification`: the page's consumer has not yet seen the program agree with
 * the model on its own pages (see `trusts`).
 */
export type CheckReason = 'spot-check' | 'schema' | 'empty-field' | 'reverification';

export interface RetiredProgram {
  program: ExtractionProgram;
  reason: string;
  pagesExtracted: number;
}

/** Field-by-field outcome of a page extracted both ways. */
export interface Comparison {
  disagreeing: string[];
  fields: number;
}

/** One field on which program and model disagreed on a page (values clipped: see `clipValue`). */
export interface Disagreement {
  url: string;
  field: string;
  /** The page's role: a verification page, or why an active page went to the model. */
  role: 'verification' | CheckReason;
  program_id: string | null;
  program: unknown;
  model: unknown;
}

/** Per-field disagreement counts since the template was founded, and the latest disagreeing values. */
export interface DisagreementLog {
  by_field: Record<string, number>;
  /** The latest disagreeing fields, oldest first (at most `RECENT_DISAGREEMENTS`). */
  recent: Disagreement[];
}

/** Disagreeing values kept per template: enough to see a pattern (an editor listed as author), not a log. */
export const RECENT_DISAGREEMENTS = 10;
const CLIP_CHARS = 200;
const CLIP_ITEMS = 10;

/** A value as the disagreement log keeps it: long texts and lists cut, so one page cannot bloat the template's state. */
export function clipValue(value: unknown): unknown {
  if (typeof value === 'string') return value.length > CLIP_CHARS ? `${value.slice(0, CLIP_CHARS)}…` : value;
  if (Array.isArray(value)) {
    const items = value.slice(0, CLIP_ITEMS).map(clipValue);
    return value.length > CLIP_ITEMS ? [...items, `… ${value.length - CLIP_ITEMS} more`] : items;
  }
  return value === undefined ? null : value;
}

export interface MachineEvent {
  kind: 'learned' | 'learn-failed' | 'accepted' | 'rejected' | 'retired';
  programId?: string;
  detail?: string;
}

/** A machine's whole state as plain JSON (what the store keeps per template). */
export interface TemplateSnapshot {
  phase: TemplatePhase;
  program: ExtractionProgram | null;
  samples: Array<{ url: string; html: string; output: Record<string, unknown> }>;
  last_failures: LearnFailure[];
  verification: { pages: number; agreeing: number };
  active: {
    pages: number;
    programPages: number;
    recentChecks: boolean[];
    checks: number;
    disagreeingChecks: number;
    /** Per field: checks of the current program on which it disagreed (absent in states stored before it existed). */
    byField?: Record<string, number>;
  };
  /** Absent in states stored before it existed. */
  disagreements?: DisagreementLog;
  always_filled: string[];
  retired: RetiredProgram[];
  /** The latest events (at most 50). */
  events: MachineEvent[];
  /** Per consumer (see `TemplateMachine.trust`); absent in states stored before consumers existed. */
  trust?: Record<string, ConsumerTrust>;
}

/** How far one consumer of a template has seen a program agree with the model on its own pages. */
export interface ConsumerTrust {
  programId: string;
  /** Agreeing pages in a row (a disagreement starts the count again). */
  agreeing: number;
}

function newActive(): Required<TemplateSnapshot['active']> {
  return { pages: 0, programPages: 0, recentChecks: [], checks: 0, disagreeingChecks: 0, byField: {} };
}

/** At most this many consumers are remembered per template (the oldest entry goes first). */
const MAX_CONSUMERS = 20;

/**
 * The life of one template's program: learning → verifying → active → (retired) → learning.
 * Pure bookkeeping over model outputs and program outputs; the caller runs the model and the
 * program (plan → run → record), so the same machine serves a sequential benchmark and a crawl.
 */
export class TemplateMachine {
  phase: TemplatePhase = 'learning';
  program?: ExtractionProgram;
  /** Model-extracted pages of the current learning round (learning + verification pages). */
  samples: LearningSample[] = [];
  lastFailures: LearnFailure[] = [];
  verification = { pages: 0, agreeing: 0 };
  /** Active phase: pages since activation, and the recent checks (true = disagreed). */
  active = newActive();
  disagreements: DisagreementLog = { by_field: {}, recent: [] };
  /** Fields that had a value on every sample the current program was learned and verified on. */
  alwaysFilled = new Set<string>();
  retired: RetiredProgram[] = [];
  events: MachineEvent[] = [];
  /**
   * Consumers that re-verify a program for themselves without resetting it for everyone else (the
   * extracts of a user: docs/learned-extraction.md "Extracts"): per consumer, the program its pages
   * were compared with and how many of them agreed in a row.
   */
  trust: Record<string, ConsumerTrust> = {};

  constructor(
    readonly templateId: string,
    private readonly fields: LearnableField[],
    private readonly config: LearnedConfig,
  ) {}

  snapshot(): TemplateSnapshot {
    return {
      phase: this.phase,
      program: this.program ?? null,
      samples: this.samples.filter((s) => s.html !== undefined).map((s) => ({ url: s.page.url, html: s.html!, output: s.output })),
      last_failures: this.lastFailures,
      verification: { ...this.verification },
      active: { ...this.active, recentChecks: [...this.active.recentChecks], byField: { ...this.active.byField } },
      disagreements: { by_field: { ...this.disagreements.by_field }, recent: [...this.disagreements.recent] },
      always_filled: [...this.alwaysFilled],
      retired: this.retired,
      events: this.events.slice(-50),
      trust: { ...this.trust },
    };
  }

  static restore(templateId: string, fields: LearnableField[], config: LearnedConfig, state: TemplateSnapshot): TemplateMachine {
    const machine = new TemplateMachine(templateId, fields, config);
    machine.phase = state.phase;
    machine.program = state.program ?? undefined;
    // Parsed only when a learner needs them (most pages of a template never do).
    machine.samples = state.samples.map((s) => {
      let page: LearningSample['page'] | undefined;
      return {
        get page() {
          return (page ??= parsePage(s.url, s.html));
        },
        output: s.output,
        html: s.html,
      };
    });
    machine.lastFailures = state.last_failures;
    machine.verification = { ...state.verification };
    machine.active = { ...state.active, recentChecks: [...state.active.recentChecks], byField: { ...(state.active.byField ?? {}) } };
    machine.disagreements = {
      by_field: { ...(state.disagreements?.by_field ?? {}) },
      recent: [...(state.disagreements?.recent ?? [])],
    };
    machine.alwaysFilled = new Set(state.always_filled);
    machine.retired = [...state.retired];
    machine.events = [...state.events];
    machine.trust = { ...(state.trust ?? {}) };
    return machine;
  }

  /** Starts from a stored program: it is verified again before it extracts anything. */
  adopt(program: ExtractionProgram): void {
    this.program = program;
    this.phase = 'verifying';
    this.verification = { pages: 0, agreeing: 0 };
    this.alwaysFilled = new Set(this.fields.map((f) => f.name));
  }

  plan(): PagePlan {
    if (this.phase === 'learning') return 'model';
    if (this.phase === 'verifying') return 'verify';
    return 'program';
  }

  /** Learning page: keep the sample; learn once there are enough. */
  recordLearning(sample: LearningSample): void {
    this.addSample(sample);
    if (this.samples.length >= this.config.learnPages) this.learn();
  }

  /** Verification page: compare; accept after enough agreeing pages, relearn at the first page too many that disagrees. */
  recordVerification(sample: LearningSample, programOutput: Record<string, unknown>): Comparison {
    const comparison = this.compare(sample.output, programOutput);
    this.logDisagreements(sample, programOutput, comparison, 'verification');
    this.addSample(sample);
    this.verification.pages++;
    if (comparison.disagreeing.length === 0) this.verification.agreeing++;
    const allowed = Math.floor((1 - this.config.acceptAgreement) * this.config.verifyPages + 1e-9);
    const failed = this.verification.pages - this.verification.agreeing;
    if (failed > allowed) {
      this.events.push({ kind: 'rejected', programId: this.program?.id, detail: `disagreed on ${comparison.disagreeing.join(', ')}` });
      this.program = undefined;
      this.phase = 'learning';
      this.learn();
    } else if (this.verification.pages >= this.config.verifyPages) {
      this.phase = 'active';
      // Samples only serve learning; a retirement starts a new round from the page that disagreed.
      const accepted = this.samples;
      this.samples = [];
      this.active = newActive();
      for (const s of accepted) for (const name of [...this.alwaysFilled]) if (!hasValue(s.output[name])) this.alwaysFilled.delete(name);
      this.events.push({
        kind: 'accepted',
        programId: this.program?.id,
        detail: `${this.verification.agreeing}/${this.verification.pages} verification pages agree`,
      });
    }
    return comparison;
  }

  /**
   * An active page the program can extract takes its place in the count, on the newest state: every
   * `spotCheckEvery`-th page is a spot check (the model extracts it too; it is counted here, not again
   * when its check is recorded), the others are program pages. Null when the program is no longer
   * the active one (retired or replaced since the page read the state): nothing is counted.
   */
  takeActivePage(programId: string): 'program' | 'spot-check' | null {
    if (this.phase !== 'active' || this.program?.id !== programId) return null;
    this.active.pages++;
    if (this.active.pages % this.config.spotCheckEvery === 0) return 'spot-check';
    this.active.programPages++;
    return 'program';
  }

  /**
   * Active page that also went to the model (spot check or a guard): disagreement on a large share
   * of the fields retires the program at once, smaller disagreements when they repeat. `counted`: the
   * page already took its place in the count (a spot check, `takeActivePage`).
   */
  recordCheck(sample: LearningSample, programOutput: Record<string, unknown>, reason: CheckReason, counted = false): Comparison {
    const comparison = this.compare(sample.output, programOutput);
    this.logDisagreements(sample, programOutput, comparison, reason);
    if (!counted) this.active.pages++;
    this.active.checks++;
    const disagreed = comparison.disagreeing.length > 0;
    if (disagreed) this.active.disagreeingChecks++;
    for (const name of comparison.disagreeing) this.active.byField[name] = (this.active.byField[name] ?? 0) + 1;
    this.active.recentChecks.push(disagreed);
    if (this.active.recentChecks.length > this.config.retireWindow) this.active.recentChecks.shift();
    const share = comparison.disagreeing.length / Math.max(1, comparison.fields);
    const recent = this.active.recentChecks.filter(Boolean).length;
    if (disagreed && (share >= this.config.retireFieldShare || recent >= this.config.retireAfter)) {
      this.retire(
        `${reason}: ${comparison.disagreeing.join(', ')} disagreed${recent > 1 ? ` (${recent} of the last ${this.active.recentChecks.length} checks)` : ''}`,
        sample,
      );
    }
    return comparison;
  }

  /** Whether a consumer may let the active program extract: it agreed with the model on `verifyPages` of the consumer's pages in a row. */
  trusts(consumer: string): boolean {
    const entry = this.trust[consumer];
    return (
      this.phase === 'active' &&
      this.program !== undefined &&
      entry?.programId === this.program.id &&
      entry.agreeing >= this.config.verifyPages
    );
  }

  /** A consumer's page extracted both ways by `programId` and the model; a disagreement starts its count again. */
  recordTrust(consumer: string, programId: string, agreed: boolean): void {
    const entry = this.trust[consumer]?.programId === programId ? this.trust[consumer] : { programId, agreeing: 0 };
    delete this.trust[consumer];
    this.trust[consumer] = { programId, agreeing: agreed ? entry.agreeing + 1 : 0 };
    const names = Object.keys(this.trust);
    for (const name of names.slice(0, Math.max(0, names.length - MAX_CONSUMERS))) delete this.trust[name];
  }

  /** Guards on a program's output before it is used: which fields that always had a value are now empty. */
  emptiedFields(programOutput: Record<string, unknown>): string[] {
    return [...this.alwaysFilled].filter((name) => !hasValue(programOutput[name]));
  }

  private compare(modelOutput: Record<string, unknown>, programOutput: Record<string, unknown>): Comparison {
    return { disagreeing: disagreeingFields(this.fields, programOutput, modelOutput), fields: this.fields.length };
  }

  /** Why a program was rejected or retired, as an operator sees it (`GET /learned-programs`): which fields, which values, on which page. */
  private logDisagreements(
    sample: LearningSample,
    programOutput: Record<string, unknown>,
    comparison: Comparison,
    role: Disagreement['role'],
  ): void {
    for (const field of comparison.disagreeing) {
      this.disagreements.by_field[field] = (this.disagreements.by_field[field] ?? 0) + 1;
      this.disagreements.recent.push({
        url: sample.page.url,
        field,
        role,
        program_id: this.program?.id ?? null,
        program: clipValue(programOutput[field]),
        model: clipValue(sample.output[field]),
      });
    }
    this.disagreements.recent.splice(0, Math.max(0, this.disagreements.recent.length - RECENT_DISAGREEMENTS));
  }

  private addSample(sample: LearningSample): void {
    this.samples.push(sample);
    if (this.samples.length > this.config.maxSamples) this.samples.shift();
  }

  private learn(): void {
    const result = learnProgram(this.fields, this.samples);
    if (!result.program) {
      this.lastFailures = result.failures;
      this.phase = 'learning';
      this.events.push({ kind: 'learn-failed', detail: result.failures.map((f) => `${f.field}: ${f.reason}`).join('; ') });
      return;
    }
    this.lastFailures = [];
    this.program = result.program;
    this.phase = 'verifying';
    this.verification = { pages: 0, agreeing: 0 };
    this.alwaysFilled = new Set(this.fields.filter((f) => this.samples.every((s) => hasValue(s.output[f.name]))).map((f) => f.name));
    this.events.push({
      kind: 'learned',
      programId: result.program.id,
      detail: `from ${this.samples.length} pages, ${result.candidates} candidate rules tried`,
    });
  }

  private retire(reason: string, sample: LearningSample): void {
    if (this.program) {
      this.retired.push({ program: this.program, reason, pagesExtracted: this.active.programPages });
      this.events.push({ kind: 'retired', programId: this.program.id, detail: reason });
    }
    this.program = undefined;
    this.phase = 'learning';
    // The old samples show the template as it was; the page that disagreed shows it as it is now.
    this.samples = [];
    this.recordLearning(sample);
  }
}
