import { compileValidator, type JsonSchemaObject, type SchemaValidator } from '@app/schema';
import { resolveLearnedConfig, type LearnedConfig } from './config';
import { parsePage, type LearnedPage } from './dom';
import { fingerprint } from './fingerprint';
import { runProgram, type ExtractionProgram } from './program';
import { TemplateMachine, type CheckReason, type PagePlan, type TemplatePhase } from './template-machine';
import { MemoryTemplateStates, type TemplateStates } from './template-states';
import { planFields, type FieldPlan, type LearnableField } from './values';

/** How a page's result was made. */
export type ExtractionMethod = 'model' | 'selectors';

export interface LearnedResult {
  data: Record<string, unknown>;
  method: ExtractionMethod;
  /** Set when `method` is `selectors`, and for checked pages (the program that ran beside the model). */
  programId?: string;
  templateId: string;
  /** Model calls this page cost (0 or 1). */
  modelCalls: number;
  /** What the page was for: learning, verification, a spot check, a guard's fallback, or a program page. */
  role: 'learning' | 'verification' | 'program' | CheckReason | 'unlearnable';
  /** Fields on which program and model disagreed, for pages extracted both ways. */
  disagreeing?: string[];
}

/** The model, as the session sees it: a page in, a schema-valid record out. */
export type ModelCall = (page: { url: string; html: string }) => Promise<Record<string, unknown>>;

export interface TemplateSummary {
  templateId: string;
  host: string;
  phase: TemplatePhase;
  program?: ExtractionProgram;
  pages: number;
  modelCalls: number;
  programPages: number;
  retired: Array<{ programId: string; reason: string; pagesExtracted: number }>;
  lastFailures: Array<{ field: string; reason: string }>;
}

export interface LearnedSessionOptions {
  /**
   * A consumer that re-verifies programs for itself: an active program extracts its pages only
   * after it agreed with the model on `verifyPages` of the consumer's own pages in a row; until then
   * each of its pages goes to the model too (role `reverification`, a check of the program). The
   * template's shared state is left as it is for everyone else. Used by single-page extracts
   * (docs/learned-extraction.md "Extracts"); a crawl re-verifies through its session instead.
   */
  consumer?: string;
}

/**
 * Learned extraction for a stream of pages with one schema (a crawl): groups pages by template,
 * and per template lets the model extract until a program has been learned and verified, then
 * extracts with the program, with spot checks and guards. The template states live in memory by
 * default, or in the document store (`StoreTemplateStates`) where page workers of several processes
 * share them: each page plans on the state it reads and records its outcome on the newest state.
 */
export class LearnedSession {
  readonly config: LearnedConfig;
  readonly plan: FieldPlan;
  private readonly validate: SchemaValidator;
  readonly states: TemplateStates;

  constructor(
    schema: JsonSchemaObject,
    private readonly model: ModelCall,
    config: Partial<LearnedConfig> = {},
    states?: (fields: LearnableField[], config: LearnedConfig) => TemplateStates,
    private readonly options: LearnedSessionOptions = {},
  ) {
    this.config = resolveLearnedConfig(config);
    this.plan = planFields(schema);
    this.validate = compileValidator(schema);
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

  async extract(url: string, html: string): Promise<LearnedResult> {
    const page = parsePage(url, html);
    const template = await this.states.match(hostOf(url), fingerprint(page.doc));
    const templateId = template.id;
    if (!this.learnable) {
      const output = await this.model({ url, html });
      await this.states.update(templateId, { pages: 1, modelCalls: 1 }, () => undefined);
      return { data: output, method: 'model', templateId, modelCalls: 1, role: 'unlearnable' };
    }
    const machine = await this.states.read(templateId);
    const plan: PagePlan = machine.plan();
    const program = machine.program;
    let programOutput: Record<string, unknown> | undefined;
    let reason: CheckReason | undefined;
    let counted = false;
    const consumer = this.options.consumer;
    if (plan !== 'model' && program) {
      programOutput = runProgram(program, page, this.plan.fields);
      if (plan !== 'verify') reason = this.guard(machine, programOutput);
      if (plan === 'program' && !reason && consumer !== undefined && !machine.trusts(consumer)) reason = 'reverification';
    }
    if (plan === 'program' && program && !reason) {
      // An active page takes its place in the count on the newest state, and only then is it known
      // whether it is a spot check: pages in flight together read the same count, so deciding on the
      // count read would make every page read while a check waits for the model a check too (and let
      // a count that moved on between two reads skip a check). One write, as a program page needs anyway.
      const taken = await this.states.update(templateId, { pages: 1 }, (current) => current.takeActivePage(program.id));
      // The program was replaced or retired meanwhile: it was accepted when the page read it, so its
      // output stands, as for any page that read the state just before another page's outcome.
      if (taken !== 'spot-check')
        return { data: programOutput!, method: 'selectors', programId: program.id, templateId, modelCalls: 0, role: 'program' };
      reason = 'spot-check';
      counted = true;
    }
    const output = await this.model({ url, html });
    const sample = { page, output, html };
    // Recorded on the newest state: another page may have moved the template on meanwhile.
    const recorded = await this.states.update(templateId, { pages: counted ? 0 : 1, modelCalls: 1 }, (current) => {
      if (current.phase === 'learning' || !current.program) {
        current.recordLearning(sample);
        return { role: 'learning' as const, programId: undefined, disagreeing: undefined };
      }
      const currentOutput =
        current.program.id === program?.id && programOutput ? programOutput : runProgram(current.program, page, this.plan.fields);
      const programId = current.program.id;
      if (current.phase === 'verifying') {
        const { disagreeing } = current.recordVerification(sample, currentOutput);
        if (consumer !== undefined) current.recordTrust(consumer, programId, disagreeing.length === 0);
        return { role: 'verification' as const, programId, disagreeing };
      }
      const checkReason = reason ?? 'spot-check';
      // A spot check took its place in the count already, unless the program changed meanwhile (a new count).
      const { disagreeing } = current.recordCheck(sample, currentOutput, checkReason, counted && current.program.id === program?.id);
      if (consumer !== undefined) current.recordTrust(consumer, programId, disagreeing.length === 0);
      return { role: checkReason, programId, disagreeing };
    });
    return { data: output, method: 'model', templateId, modelCalls: 1, ...recorded };
  }

  /** Why a program's output must not be used as it is: it fails the schema, or a field that always had a value is empty. */
  private guard(machine: TemplateMachine, output: Record<string, unknown>): CheckReason | undefined {
    if (!this.validate(output).valid) return 'schema';
    return machine.emptiedFields(output).length > 0 ? 'empty-field' : undefined;
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
      programPages: machine.active.programPages + machine.retired.reduce((n, r) => n + r.pagesExtracted, 0),
      retired: machine.retired.map((r) => ({ programId: r.program.id, reason: r.reason, pagesExtracted: r.pagesExtracted })),
      lastFailures: machine.lastFailures,
    }));
  }
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}

export type { LearnedPage };
