import { compileValidator, type JsonSchemaObject, type SchemaValidator } from '@app/schema';
import { resolveLearnedConfig, type LearnedConfig } from './config';
import { parsePage, type LearnedPage } from './dom';
import { excerptOf } from './excerpt';
import { ruleKey } from './field-state';
import { fingerprint } from './fingerprint';
import { runFieldRule, type ExtractionProgram, type FieldRule } from './program';
import type { CheckReason, FieldRole, TemplateMachine, TemplatePhase } from './template-machine';
import { MemoryTemplateStates, type TemplateStates } from './template-states';
import { partialSchema, planFields, type FieldPlan, type LearnableField } from './values';

/** How a page's result was made: by the model, by the program, or `mixed` (some fields by each). */
export type ExtractionMethod = 'model' | 'selectors' | 'mixed';

/**
 * A model call the session asks for. `full`: the whole page for every field, as without learned extraction.
 * `partial`: some fields only (the schema of those fields), or the page's text around where the rules found the
 * values (`excerpt`, docs/learned-extraction.md "Partial calls") instead of the whole page.
 */
export interface ModelRequest {
  url: string;
  html: string;
  kind: 'full' | 'partial';
  fields: string[];
  schema: JsonSchemaObject;
  excerpt?: string;
}

/** The model, as the session sees it: a request in, a record valid for `request.schema` out. */
export type ModelCall = (request: ModelRequest) => Promise<Record<string, unknown>>;

export interface LearnedResult {
  data: Record<string, unknown>;
  method: ExtractionMethod;
  /** The program that filled fields (`selectors`, `mixed`) or that was compared with the model. */
  programId?: string;
  templateId: string;
  /** Model calls this page cost (0 or 1). */
  modelCalls: number;
  /** The model call's kind, when there was one. */
  call?: 'full' | 'partial';
  /** `mixed` pages: the fields the model filled (the program filled the others). */
  modelFields?: string[];
  /** What the page was for: its strongest field role (learning, verification, a check), a program page, or an unlearnable schema's. */
  role: FieldRole | 'program' | 'unlearnable';
  /** Fields on which a rule and the model disagreed, for pages that compared them. */
  disagreeing?: string[];
  /** The rules that filled fields of the result (`selectors` and `mixed` pages): each value's exact provenance. */
  rules?: Record<string, FieldRule>;
}

/** Per page: whether an active rule's value is on the page (docs/provenance.md "Learned programs"); null: no verdict. */
export type GroundingCheck = (field: LearnableField, value: unknown) => boolean | null;

export interface ExtractPageOptions {
  /** The drift guard: an active rule whose value is not on the page does not fill the field; the model is asked. */
  grounded?: GroundingCheck;
}

export interface TemplateSummary {
  templateId: string;
  host: string;
  phase: TemplatePhase;
  program?: ExtractionProgram;
  pages: number;
  modelCalls: number;
  programPages: number;
  retired: Array<{ programId: string; field?: string; reason: string; pagesExtracted: number }>;
  lastFailures: Array<{ field: string; reason: string }>;
}

export interface LearnedSessionOptions {
  /**
   * The consumer whose pages these are (a crawl, or a user's extracts). An active rule fills a field of the
   * consumer's pages only after it agreed with the model on `verifyPages` of the consumer's own pages in a row;
   * until then the field is asked of the model (role `reverification`), without setting the template back for
   * anyone else (docs/learned-extraction.md "Consumers"). Without a consumer (one session in memory, or a legacy
   * crawl whose store re-verifies per session), accepted rules are used at once.
   */
  consumer?: string;
}

/**
 * Learned extraction for a stream of pages with one schema: groups pages by template, and per template and field
 * lets the model fill the field until a rule has been learned and verified, then fills it with the rule — asking
 * the model only for the fields whose rules are not (yet) trusted, with spot checks and guards. The template states
 * live in memory by default, or in the document store (`StoreTemplateStates`) where page workers of several
 * processes share them: each page plans on the state it reads and records its outcome on the newest state.
 */
export class LearnedSession {
  readonly config: LearnedConfig;
  readonly plan: FieldPlan;
  private readonly fieldValidators = new Map<string, SchemaValidator>();
  readonly states: TemplateStates;

  constructor(
    private readonly schema: JsonSchemaObject,
    private readonly model: ModelCall,
    config: Partial<LearnedConfig> = {},
    states?: (fields: LearnableField[], config: LearnedConfig) => TemplateStates,
    private readonly options: LearnedSessionOptions = {},
  ) {
    this.config = resolveLearnedConfig(config);
    this.plan = planFields(schema);
    this.states = states ? states(this.plan.fields, this.config) : new MemoryTemplateStates(this.plan.fields, this.config);
  }

  /** Whether programs can be learned for this schema at all (every property a scalar or a list of scalars). */
  get learnable(): boolean {
    return this.plan.unsupported.length === 0 && this.plan.fields.length > 0;
  }

  /** A stored program for a known template (same host): it is verified again before it extracts. */
  async adopt(host: string, templateId: string, founding: { url: string; html: string }, program: ExtractionProgram): Promise<void> {
    const print = fingerprint(parsePage(founding.url, founding.html).doc);
    await this.states.adopt({ id: templateId, host, fingerprint: print }, program);
  }

  /** The page, each field by its rule or by the model (a partial call when the rules fill the other fields). */
  async extract(url: string, html: string, options: ExtractPageOptions = {}): Promise<LearnedResult> {
    const page = parsePage(url, html);
    const template = await this.states.match(hostWithPort(url), fingerprint(page.doc));
    const templateId = template.id;
    const fields = this.plan.fields;
    const all = fields.map((f) => f.name);
    if (!this.learnable) {
      const output = await this.model({ url, html, kind: 'full', fields: Object.keys(this.schema.properties ?? {}), schema: this.schema });
      await this.states.update(templateId, { pages: 1, modelCalls: 1 }, () => undefined);
      return { data: output, method: 'model', templateId, modelCalls: 1, call: 'full', role: 'unlearnable' };
    }
    const machine = await this.states.read(templateId);
    const run = ruleRunner(page);
    const { reasons, programData } = this.planPage(machine, run, options.grounded);
    const programFields = Object.keys(programData);
    let spotCheck = false;
    if (programFields.length > 0) {
      // A page the program fills (in part) takes its place in the count on the newest state, and only then is it
      // known whether it is a spot check: pages in flight together read the same count, so deciding on the count
      // read would make every page read while a check waits for the model a check too.
      spotCheck = (await this.states.update(templateId, { pages: 1 }, (current) => current.takeActivePage(programFields))) === 'spot-check';
    }
    const programId = machine.program?.id;
    const rules = () => Object.fromEntries(programFields.map((name) => [name, machine.field(name).rule!]));
    if (!spotCheck && programFields.length === fields.length)
      return {
        data: ordered(all, programData),
        method: 'selectors',
        programId,
        templateId,
        modelCalls: 0,
        role: 'program',
        rules: rules(),
      };
    if (spotCheck) for (const name of all) reasons[name] ??= 'spot-check';
    const asked = all.filter((name) => reasons[name] !== undefined);
    // Fields only re-verified for this consumer: the model reads the text around what their rules found.
    const askedRules = asked.map((name) => machine.field(name).rule);
    const excerpt =
      !spotCheck && asked.every((name) => reasons[name] === 'reverification') && askedRules.every((r) => r)
        ? excerptOf(askedRules as FieldRule[], page)
        : undefined;
    const kind = asked.length === all.length && excerpt === undefined ? 'full' : 'partial';
    const output = await this.model({
      url,
      html,
      kind,
      fields: asked,
      schema: kind === 'full' ? this.schema : partialSchema(this.schema, asked),
      ...(excerpt !== undefined ? { excerpt } : {}),
    });
    const sample = { page, output, html, ...(kind === 'partial' ? { fields: asked } : {}) };
    // Recorded on the newest state: another page may have moved the template on meanwhile.
    const recorded = await this.states.update(templateId, { pages: programFields.length > 0 ? 0 : 1, modelCalls: 1 }, (current) =>
      current.recordPage({ sample, reasons, consumer: this.options.consumer, run }),
    );
    const mixed = !spotCheck && asked.length < all.length;
    const data = mixed ? ordered(all, { ...programData, ...pick(output, asked) }) : output;
    return {
      data,
      method: mixed ? 'mixed' : 'model',
      programId: mixed ? programId : (recorded.programId ?? programId),
      templateId,
      modelCalls: 1,
      call: kind,
      ...(mixed ? { modelFields: asked, rules: rules() } : {}),
      role: spotCheck ? 'spot-check' : recorded.role,
      disagreeing: recorded.disagreeing,
    };
  }

  /**
   * Per field, on the state the page read: the program's value, or why the model must fill it — its rule is still
   * learned or verified, the consumer has not yet seen it agree (re-verification), or its value fails the guards
   * (the field's schema, or empty where the field always had a value).
   */
  private planPage(machine: TemplateMachine, run: RuleRunner, grounded?: GroundingCheck) {
    const reasons: Record<string, FieldRole> = {};
    const programData: Record<string, unknown> = {};
    const consumer = this.options.consumer;
    for (const field of this.plan.fields) {
      const state = machine.field(field.name);
      if (state.phase !== 'active') {
        reasons[field.name] = state.phase === 'learning' ? 'learning' : 'verification';
        continue;
      }
      const value = run(state.rule, field);
      let reason: CheckReason | undefined;
      if (consumer !== undefined && !machine.trusts(consumer, field.name)) reason = 'reverification';
      else if (!this.fieldValid(field, value)) reason = 'schema';
      else if (machine.emptied(field.name, value)) reason = 'empty-field';
      else if (grounded && machine.guardsGrounding(field.name) && grounded(field, value) === false) reason = 'ungrounded';
      if (reason) reasons[field.name] = reason;
      else programData[field.name] = value;
    }
    return { reasons, programData };
  }

  /** A rule's value must be valid for its field's schema (a required field found empty is not). */
  private fieldValid(field: LearnableField, value: unknown): boolean {
    let validate = this.fieldValidators.get(field.name);
    if (!validate) {
      validate = compileValidator(partialSchema(this.schema, [field.name]));
      this.fieldValidators.set(field.name, validate);
    }
    return validate({ [field.name]: value }).valid;
  }

  async machine(templateId: string): Promise<TemplateMachine> {
    return this.states.read(templateId);
  }

  async templates(): Promise<TemplateSummary[]> {
    return (await this.states.list()).map(({ template, machine, counts }) => ({
      templateId: template.id,
      host: template.host,
      phase: machine.phase,
      program: machine.program,
      pages: counts.pages,
      modelCalls: counts.modelCalls,
      programPages: machine.active.programPages,
      retired: machine.retired.map((r) => ({
        programId: r.program.id,
        ...(r.field ? { field: r.field } : {}),
        reason: r.reason,
        pagesExtracted: r.pagesExtracted,
      })),
      lastFailures: machine.lastFailures,
    }));
  }
}

type RuleRunner = (rule: FieldRule | null | undefined, field: LearnableField) => unknown;

/** Each rule runs once per page (planning and recording may both need its value). */
function ruleRunner(page: LearnedPage): RuleRunner {
  const cache = new Map<string, unknown>();
  return (rule, field) => {
    if (!rule) return field.list ? [] : null;
    const key = `${field.name}:${ruleKey(rule)}`;
    if (!cache.has(key)) cache.set(key, runFieldRule(rule, page, field));
    return cache.get(key);
  };
}

function pick(record: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, record[name] ?? null]));
}

/** The record with the schema's field order. */
function ordered(names: string[], record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, record[name] ?? null]));
}

/** The host templates are registered under: lower-cased, with its port; `''` for a URL that does not parse. */
function hostWithPort(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}

export type { LearnedPage };
