import type { LearnedConfig } from './config';
import { TemplateRegistry, type TemplateRef } from './fingerprint';
import { TemplateMachine } from './template-machine';
import type { LearnableField } from './values';

/** Per-template page and model-call counts, kept beside the machine. */
export interface TemplateCounts {
  pages: number;
  modelCalls: number;
}

/**
 * Where a session keeps its templates and their machines. `update` may run `change` more than once
 * (a store retries it on the newest state when another process changed the template meanwhile),
 * so `change` must only touch the machine it is given.
 */
export interface TemplateStates {
  /** The template of a page's fingerprint: a known one of the host, or a new one. */
  match(host: string, print: TemplateRef['fingerprint']): Promise<TemplateRef>;
  read(templateId: string): Promise<TemplateMachine>;
  update<T>(templateId: string, counts: Partial<TemplateCounts>, change: (machine: TemplateMachine) => T): Promise<T>;
  list(): Promise<Array<{ template: TemplateRef; machine: TemplateMachine; counts: TemplateCounts }>>;
  /** A stored program for a known template (it starts in verification). */
  adopt(template: TemplateRef, program: NonNullable<TemplateMachine['program']>): Promise<void>;
}

/** One process, one crawl: machines live in memory. */
export class MemoryTemplateStates implements TemplateStates {
  private readonly registry: TemplateRegistry;
  private readonly entries = new Map<string, { template: TemplateRef; machine: TemplateMachine; counts: TemplateCounts }>();

  constructor(
    private readonly fields: LearnableField[],
    private readonly config: LearnedConfig,
  ) {
    this.registry = new TemplateRegistry(config.templateSimilarity);
  }

  async match(host: string, print: TemplateRef['fingerprint']): Promise<TemplateRef> {
    const { template } = this.registry.match(host, print);
    this.entry(template);
    return template;
  }

  async read(templateId: string): Promise<TemplateMachine> {
    return this.entries.get(templateId)!.machine;
  }

  async update<T>(templateId: string, counts: Partial<TemplateCounts>, change: (machine: TemplateMachine) => T): Promise<T> {
    const entry = this.entries.get(templateId)!;
    entry.counts.pages += counts.pages ?? 0;
    entry.counts.modelCalls += counts.modelCalls ?? 0;
    return change(entry.machine);
  }

  async list() {
    return [...this.entries.values()];
  }

  async adopt(template: TemplateRef, program: NonNullable<TemplateMachine['program']>): Promise<void> {
    this.registry.add(template);
    this.entry(template).machine.adopt(program);
  }

  private entry(template: TemplateRef) {
    let entry = this.entries.get(template.id);
    if (!entry) {
      entry = { template, machine: new TemplateMachine(template.id, this.fields, this.config), counts: { pages: 0, modelCalls: 0 } };
      this.entries.set(template.id, entry);
    }
    return entry;
  }
}
