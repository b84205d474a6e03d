import { compileValidator, type JsonSchemaObject, type SchemaValidator } from '@app/schema';
import { resolveLearnedConfig, type LearnedConfig } from './config';
import { parsePage, type LearnedPage } from './dom';
import { fingerprint, TemplateRegistry } from './fingerprint';
import { runProgram, type ExtractionProgram } from './program';
import { TemplateMachine, type CheckReason, type PagePlan, type TemplatePhase } from './template-machine';
import { planFields, type FieldPlan } from './values';

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

/**
 * Learned extraction for a stream of pages with one schema (a crawl): groups pages by template,
 * and per template lets the model extract until a program has been learned and verified, then
 * extracts with the program, with spot checks and guards. Pages of one template are taken one at
 * a time (the caller serialises per template; different templates may run concurrently).
 */
export class LearnedSession {
  readonly config: LearnedConfig;
  readonly plan: FieldPlan;
  private readonly validate: SchemaValidator;
  private readonly registry: TemplateRegistry;
  private readonly machines = new Map<string, { machine: TemplateMachine; host: string; pages: number; modelCalls: number }>();

  constructor(
    schema: JsonSchemaObject,
    private readonly model: ModelCall,
    config: Partial<LearnedConfig> = {},
  ) {
    this.config = resolveLearnedConfig(config);
    this.plan = planFields(schema);
    this.validate = compileValidator(schema);
    this.registry = new TemplateRegistry(this.config.templateSimilarity);
  }

  /** Whether programs can be learned for this schema at all (every property a scalar or a list of scalars). */
  get learnable(): boolean {
    return this.plan.unsupported.length === 0 && this.plan.fields.length > 0;
  }

  /** A stored program for a known template (same host): it is verified again before it extracts. */
  adopt(host: string, templateId: string, founding: { url: string; html: string }, program: ExtractionProgram): void {
    const print = fingerprint(parsePage(founding.url, founding.html).doc);
    this.registry.add({ id: templateId, host, fingerprint: print });
    this.entry(templateId, host).machine.adopt(program);
  }

  async extract(url: string, html: string): Promise<LearnedResult> {
    const page = parsePage(url, html);
    const host = hostOf(url);
    const { template } = this.registry.match(host, fingerprint(page.doc));
    const entry = this.entry(template.id, host);
    entry.pages++;
    if (!this.learnable) return this.modelOnly(entry, url, html, template.id);
    const machine = entry.machine;
    const plan: PagePlan = machine.plan();
    if (plan === 'model') {
      const output = await this.callModel(entry, url, html);
      machine.recordLearning({ page, output });
      return { data: output, method: 'model', templateId: template.id, modelCalls: 1, role: 'learning' };
    }
    const program = machine.program!;
    const programOutput = runProgram(program, page, this.plan.fields);
    if (plan === 'verify') {
      const output = await this.callModel(entry, url, html);
      const { disagreeing } = machine.recordVerification({ page, output }, programOutput);
      return {
        data: output,
        method: 'model',
        programId: program.id,
        templateId: template.id,
        modelCalls: 1,
        role: 'verification',
        disagreeing,
      };
    }
    const reason = plan === 'spot-check' ? 'spot-check' : this.guard(machine, programOutput);
    if (reason) {
      const output = await this.callModel(entry, url, html);
      const { disagreeing } = machine.recordCheck({ page, output }, programOutput, reason);
      return { data: output, method: 'model', programId: program.id, templateId: template.id, modelCalls: 1, role: reason, disagreeing };
    }
    machine.recordProgramPage();
    return { data: programOutput, method: 'selectors', programId: program.id, templateId: template.id, modelCalls: 0, role: 'program' };
  }

  /** Why a program's output must not be used as it is: it fails the schema, or a field that always had a value is empty. */
  private guard(machine: TemplateMachine, output: Record<string, unknown>): CheckReason | undefined {
    if (!this.validate(output).valid) return 'schema';
    return machine.emptiedFields(output).length > 0 ? 'empty-field' : undefined;
  }

  private async modelOnly(entry: { modelCalls: number }, url: string, html: string, templateId: string): Promise<LearnedResult> {
    const output = await this.callModel(entry, url, html);
    return { data: output, method: 'model', templateId, modelCalls: 1, role: 'unlearnable' };
  }

  private async callModel(entry: { modelCalls: number }, url: string, html: string): Promise<Record<string, unknown>> {
    entry.modelCalls++;
    return this.model({ url, html });
  }

  private entry(templateId: string, host: string) {
    let entry = this.machines.get(templateId);
    if (!entry) {
      entry = { machine: new TemplateMachine(templateId, this.plan.fields, this.config), host, pages: 0, modelCalls: 0 };
      this.machines.set(templateId, entry);
    }
    return entry;
  }

  machine(templateId: string): TemplateMachine | undefined {
    return this.machines.get(templateId)?.machine;
  }

  templates(): TemplateSummary[] {
    return [...this.machines.values()].map(({ machine, host, pages, modelCalls }) => ({
      templateId: machine.templateId,
      host,
      phase: machine.phase,
      program: machine.program,
      pages,
      modelCalls,
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
