import type { LearnedConfig } from './config';
import { logDisagreement, emptyLog, type CheckReason, type DisagreementLog } from './disagreement-log';
import {
  activate,
  backToLearning,
  checkField,
  newFieldState,
  ruleKey,
  startVerifying,
  verifyField,
  type FieldPhase,
  type FieldState,
} from './field-state';
import { covers, learnRule, type LearnFailure, type LearningSample } from './learner';
import { makeProgram, type ExtractionProgram, type FieldRule } from './program';
import { hasValue, valuesAgree, type LearnableField } from './values';

export type { CheckReason };

/** A template's phase: that of its least advanced field (`active`: the program extracts every field). */
export type TemplatePhase = FieldPhase;

/** Why a field of a page went to the model. */
export type FieldRole = 'learning' | 'verification' | CheckReason;

export interface RetiredProgram {
  /** The program (the accepted rules of every active field) when the field's rule was retired. */
  program: ExtractionProgram;
  /** The field whose rule was retired (absent in states stored before rules were per field: the whole program). */
  field?: string;
  reason: string;
  pagesExtracted: number;
}

export interface MachineEvent {
  kind: 'learned' | 'learn-failed' | 'accepted' | 'rejected' | 'retired';
  field?: string;
  /** `accepted`: the program the acceptance made; `retired`: the program the field's rule was retired from; `learned`, `rejected`: the rule's key. */
  programId?: string;
  detail?: string;
}

/** How far one consumer has seen a field's rule agree with the model on its own pages, in a row. */
export interface FieldTrust {
  rule: string;
  agreeing: number;
}

/** At most this many consumers are remembered per template (the oldest entry goes first). */
const MAX_CONSUMERS = 20;
/** Programs remembered per template, newest last: what a result's `program_id` refers to. */
const MAX_PROGRAMS = 20;
const MAX_EVENTS = 50;

/** What a page that went to the model brings to its template's state. */
export interface PageRecord {
  /** The model's answer: `output` holds the fields of `sample.fields` (absent: every field, a full call). */
  sample: LearningSample;
  /** Per asked field, why it was asked, as planned on the state the page read. */
  reasons: Record<string, FieldRole>;
  consumer?: string;
  /** The rule's value on the page (the session runs each rule once per page). */
  run: (rule: FieldRule | null | undefined, field: LearnableField) => unknown;
}

export interface PageOutcome {
  /** What the page was, as recorded on the newest state (a learning page recorded after its field's rule was learned verifies it). */
  role: FieldRole;
  disagreeing: string[];
  programId?: string;
}

/**
 * The life of one template's rules, each field on its own: learning → verifying → active → (retired) → learning.
 * Pure bookkeeping over model outputs and rule outputs; the caller runs the model and the rules (plan → run →
 * record), so the same machine serves a sequential benchmark and a crawl (docs/learned-extraction.md).
 */
export class TemplateMachine {
  fieldStates: Record<string, FieldState>;
  /** Model-answered pages kept for learning while any field learns or verifies (oldest dropped at `maxSamples`). */
  samples: LearningSample[] = [];
  /** Pages on which at least one field was verified; agreeing: every verified field agreed. */
  verification = { pages: 0, agreeing: 0 };
  /** Pages that used the program (the spot-check count), and checks since every field was last accepted. */
  active = { pages: 0, programPages: 0, checks: 0, disagreeingChecks: 0, byField: {} as Record<string, number> };
  disagreements: DisagreementLog = emptyLog();
  retired: RetiredProgram[] = [];
  events: MachineEvent[] = [];
  /** Per consumer and field (docs/learned-extraction.md "Consumers"). */
  trust: Record<string, Record<string, FieldTrust>> = {};
  /** Programs this template has used, newest last. */
  programs: ExtractionProgram[] = [];
  /** Acceptances of this page, named with the program they make once every field's change is applied. */
  private readonly accepted: MachineEvent[] = [];

  constructor(
    readonly templateId: string,
    readonly fields: LearnableField[],
    readonly config: LearnedConfig,
  ) {
    this.fieldStates = Object.fromEntries(fields.map((f) => [f.name, newFieldState()]));
  }

  get phase(): TemplatePhase {
    const phases = this.fields.map((f) => this.fieldStates[f.name].phase);
    return phases.includes('learning') ? 'learning' : phases.includes('verifying') ? 'verifying' : 'active';
  }

  /** The accepted rules of every active field; undefined while no field is active. */
  get program(): ExtractionProgram | undefined {
    const active = this.fields.filter((f) => this.fieldStates[f.name].phase === 'active');
    if (active.length === 0) return undefined;
    return makeProgram(active.flatMap((f) => (this.fieldStates[f.name].rule ? [this.fieldStates[f.name].rule!] : [])));
  }

  get lastFailures(): LearnFailure[] {
    return this.fields.flatMap((f) => {
      const state = this.fieldStates[f.name];
      return state.phase === 'learning' && state.failure ? [{ field: f.name, reason: state.failure }] : [];
    });
  }

  field(name: string): FieldState {
    return this.fieldStates[name];
  }

  /** Starts from a stored program: every field verifies its rule again before it extracts anything. */
  adopt(program: ExtractionProgram): void {
    for (const f of this.fields) startVerifying(this.fieldStates[f.name], program.rules.find((r) => r.field === f.name) ?? null);
  }

  /** Whether a consumer may let the field's active rule extract: it agreed with the model on `verifyPages` of the consumer's pages in a row. */
  trusts(consumer: string, field: string): boolean {
    const state = this.fieldStates[field];
    const entry = this.trust[consumer]?.[field];
    return state.phase === 'active' && entry?.rule === ruleKey(state.rule) && entry.agreeing >= this.config.verifyPages;
  }

  /** Guard on an active rule's value: empty where the field always had one. */
  emptied(field: string, value: unknown): boolean {
    return this.fieldStates[field].always_filled && !hasValue(value);
  }

  /** Whether an ungrounded value of the field's active rule sends the field to the model (until the model confirms one). */
  guardsGrounding(field: string): boolean {
    return this.fieldStates[field].ungrounded_confirmed !== true;
  }

  /**
   * A page whose fields `programFields` the program fills takes its place in the count, on the newest state: every
   * `spotCheckEvery`-th such page is a spot check (the model extracts the whole page and every rule is compared).
   */
  takeActivePage(programFields: string[]): 'program' | 'spot-check' {
    this.active.pages++;
    if (this.active.pages % this.config.spotCheckEvery === 0) return 'spot-check';
    this.active.programPages++;
    for (const name of programFields) if (this.fieldStates[name].phase === 'active') this.fieldStates[name].pages_extracted++;
    return 'program';
  }

  /** A page that went to the model, recorded on the newest state field by field. */
  recordPage(record: PageRecord): PageOutcome {
    const { sample, consumer } = record;
    const asked = this.fields.filter((f) => covers(sample, f.name));
    const programId = this.program?.id;
    const disagreeing: string[] = [];
    const verified: Array<{ field: LearnableField; agreed: boolean }> = [];
    const checked: Array<{ field: LearnableField; agreed: boolean; reason: CheckReason }> = [];
    const roles: FieldRole[] = [];
    for (const field of asked) {
      const state = this.fieldStates[field.name];
      if (state.phase === 'learning') {
        roles.push('learning');
        continue;
      }
      const planned = record.reasons[field.name];
      const role: 'verification' | CheckReason = state.phase === 'verifying' ? 'verification' : isCheck(planned) ? planned : 'spot-check';
      roles.push(role);
      const programValue = record.run(state.rule, field);
      const agreed = valuesAgree(field, programValue, sample.output[field.name]);
      if (!agreed) {
        disagreeing.push(field.name);
        logDisagreement(this.disagreements, {
          url: sample.page.url,
          field: field.name,
          role,
          program_id: programId ?? null,
          rule_id: ruleKey(state.rule),
          program: programValue,
          model: sample.output[field.name],
        });
      }
      if (consumer !== undefined) this.recordTrust(consumer, field.name, ruleKey(state.rule), agreed);
      if (state.phase === 'verifying') verified.push({ field, agreed });
      else checked.push({ field, agreed, reason: role as CheckReason });
    }
    if (verified.length > 0) {
      this.verification.pages++;
      if (verified.every((v) => v.agreed)) this.verification.agreeing++;
    }
    if (checked.length > 0) {
      this.active.checks++;
      if (checked.some((c) => !c.agreed)) this.active.disagreeingChecks++;
      for (const c of checked) if (!c.agreed) this.active.byField[c.field.name] = (this.active.byField[c.field.name] ?? 0) + 1;
    }
    const before = { program: this.program, phase: this.phase };
    this.applyChecks(checked, sample);
    // Samples serve learning and verification only (a retired field learns again from this page on).
    if (asked.some((f) => this.fieldStates[f.name].phase !== 'active')) this.addSample(sample);
    this.applyVerifications(verified);
    for (const field of asked) if (this.fieldStates[field.name].phase === 'learning') this.learn(field);
    this.afterChange(before);
    return { role: strongest(roles), disagreeing, programId };
  }

  /** Checks of active rules: a rule is retired when it disagrees often (`retireAfter` of its last `retireWindow` checks) or together with enough other fields. */
  private applyChecks(checked: Array<{ field: LearnableField; agreed: boolean; reason: CheckReason }>, sample: LearningSample): void {
    const share = checked.filter((c) => !c.agreed).length / Math.max(1, this.fields.length);
    for (const { field, agreed, reason } of checked) {
      const state = this.fieldStates[field.name];
      const recent = checkField(state, !agreed, this.config);
      // An always-filled field the model confirms absent is optional: an empty value is the rule's valid outcome.
      if (agreed && reason === 'empty-field' && !hasValue(sample.output[field.name])) state.always_filled = false;
      // The model reads the rule's value too: grounding does not know its form, so it is no reason to ask again.
      if (agreed && reason === 'ungrounded') state.ungrounded_confirmed = true;
      if (agreed || (recent < this.config.retireAfter && share < this.config.retireFieldShare)) continue;
      const many = recent > 1 ? ` (${recent} of the last ${state.checks.recent.length} checks)` : '';
      this.retire(field.name, `${reason}: ${field.name} disagreed${many}`);
    }
  }

  private applyVerifications(verified: Array<{ field: LearnableField; agreed: boolean }>): void {
    for (const { field, agreed } of verified) {
      const state = this.fieldStates[field.name];
      const verdict = verifyField(state, agreed, this.config);
      if (verdict === 'rejected') {
        this.pushEvent({ kind: 'rejected', field: field.name, programId: ruleKey(state.rule), detail: `${field.name} disagreed` });
        backToLearning(state);
      } else if (verdict === 'accepted') {
        const seen = this.samples.filter((s) => covers(s, field.name));
        activate(state, seen.length > 0 && seen.every((s) => hasValue(s.output[field.name])));
        this.accepted.push({
          kind: 'accepted',
          field: field.name,
          detail: `${field.name}: ${state.verification.agreeing}/${state.verification.pages} verification pages agree`,
        });
      }
    }
  }

  /** The program changed: remember it, name it in the latest events; once every field is active, drop the samples and count checks afresh. */
  private afterChange(before: { program: ExtractionProgram | undefined; phase: TemplatePhase }): void {
    const after = this.program;
    if (after && after.id !== before.program?.id) {
      if (!this.programs.some((p) => p.id === after.id)) this.programs.push(after);
      this.programs.splice(0, Math.max(0, this.programs.length - MAX_PROGRAMS));
    }
    // Acceptances name the program they made (none when the template has no active field left).
    for (const e of this.accepted.splice(0)) this.pushEvent({ ...e, ...(after ? { programId: after.id } : {}) });
    if (this.phase === 'active' && before.phase !== 'active') {
      this.samples = [];
      this.active.checks = 0;
      this.active.disagreeingChecks = 0;
      this.active.byField = {};
    }
  }

  recordTrust(consumer: string, field: string, rule: string, agreed: boolean): void {
    const entry = this.trust[consumer] ?? {};
    const previous = entry[field]?.rule === rule ? entry[field].agreeing : 0;
    entry[field] = { rule, agreeing: agreed ? previous + 1 : 0 };
    delete this.trust[consumer];
    this.trust[consumer] = entry;
    const names = Object.keys(this.trust);
    for (const name of names.slice(0, Math.max(0, names.length - MAX_CONSUMERS))) delete this.trust[name];
  }

  private addSample(sample: LearningSample): void {
    this.samples.push(sample);
    if (this.samples.length > this.config.maxSamples) this.samples.shift();
  }

  /** With `learnPages` samples of the field, the learner looks for a rule that reproduces every one of them. */
  private learn(field: LearnableField): void {
    const state = this.fieldStates[field.name];
    const seen = this.samples.filter((s) => covers(s, field.name));
    if (seen.length < this.config.learnPages) return;
    // With more samples than a round needs, one of them may be a page no rule can reproduce (learnRule `outliers`).
    const result = learnRule(field, seen, seen.length > this.config.learnPages ? 1 : 0);
    if (result.rule === undefined) {
      state.failure = result.failure;
      this.pushEvent({ kind: 'learn-failed', field: field.name, detail: `${field.name}: ${result.failure}` });
      return;
    }
    if (!this.fields.some((f) => this.fieldStates[f.name].phase === 'verifying')) this.verification = { pages: 0, agreeing: 0 };
    startVerifying(state, result.rule);
    this.pushEvent({
      kind: 'learned',
      field: field.name,
      programId: ruleKey(result.rule),
      detail: `${field.name}: from ${seen.length} pages${result.missed ? ` (${result.missed} not reproduced)` : ''}, ${result.candidates} candidate rules tried`,
    });
  }

  /** The field's rule is retired; the old samples show the template as it was, so they no longer teach the field. */
  private retire(name: string, reason: string): void {
    const state = this.fieldStates[name];
    const program = this.program;
    if (program) this.retired.push({ program, field: name, reason, pagesExtracted: state.pages_extracted });
    this.pushEvent({ kind: 'retired', field: name, ...(program ? { programId: program.id } : {}), detail: reason });
    backToLearning(state);
    const all = this.fields.map((f) => f.name);
    for (const s of this.samples) s.fields = (s.fields ?? all).filter((f) => f !== name);
    this.samples = this.samples.filter((s) => s.fields!.length > 0);
  }

  private pushEvent(event: MachineEvent): void {
    this.events.push(event);
    this.events.splice(0, Math.max(0, this.events.length - MAX_EVENTS));
  }
}

const STRENGTH: FieldRole[] = ['spot-check', 'learning', 'verification', 'reverification', 'schema', 'empty-field', 'ungrounded'];

/** The page's role: its strongest field role (a spot check over learning over verification over the guards). */
function strongest(roles: FieldRole[]): FieldRole {
  return STRENGTH.find((r) => roles.includes(r)) ?? 'spot-check';
}

function isCheck(role: FieldRole | undefined): role is CheckReason {
  return role === 'spot-check' || role === 'schema' || role === 'empty-field' || role === 'ungrounded' || role === 'reverification';
}
