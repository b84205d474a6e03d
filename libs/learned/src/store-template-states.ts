import { createHash } from 'node:crypto';
import { DuplicateKeyError } from '@app/core';
import type { Collection, Doc, DocumentStore } from '@app/storage';
import type { LearnedConfig } from './config';
import { TemplateRegistry, type TemplateRef } from './fingerprint';
import type { ExtractionProgram } from './program';
import { TemplateMachine } from './template-machine';
import { restoreMachine, snapshotOf, type TemplateSnapshot } from './template-snapshot';
import type { TemplateCounts, TemplateStates } from './template-states';
import type { LearnableField } from './values';

/** One template of one site for one user and schema: its fingerprint and its machine's state. */
export interface LearnedTemplateRecord extends Doc {
  kind: 'template';
  user_id: string;
  /** sha256 of the normalised schema (programs are per schema: they extract its fields). */
  schema_key: string;
  host: string;
  template_id: string;
  fingerprint: string[];
  fields: string[];
  state: TemplateSnapshot;
  /**
   * Which crawl last used the state, in the days when a new crawl set an active program back to verifying for
   * everyone: no longer read or written (consumers keep their own trust, docs/learned-extraction.md "Consumers").
   */
  session_id?: string;
  version: number;
  pages: number;
  model_calls: number;
  created_at: string;
  updated_at: string;
}

export const LEARNED_TEMPLATES = {
  name: 'learned_templates',
  indexes: [
    { fields: { user_id: 1, schema_key: 1, host: 1 } as Record<string, 1 | -1> },
    { fields: { user_id: 1, host: 1, updated_at: -1 } as Record<string, 1 | -1> },
    { fields: { user_id: 1, created_at: -1 } as Record<string, 1 | -1> },
  ],
};

export function schemaKey(schema: unknown): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 24);
}

export function learnedTemplateId(userId: string, key: string, templateId: string): string {
  return `lt_${createHash('sha256').update(`${userId}\n${key}\n${templateId}`).digest('hex').slice(0, 24)}`;
}

export async function learnedTemplates(store: DocumentStore): Promise<Collection<LearnedTemplateRecord>> {
  return store.collection<LearnedTemplateRecord>(LEARNED_TEMPLATES);
}

/** The templates of one host for one user and schema, in the order they were founded. */
export interface HostRegistryRecord extends Doc {
  kind: 'host';
  user_id: string;
  schema_key: string;
  host: string;
  templates: Array<{ template_id: string; fingerprint: string[] }>;
  version: number;
  created_at: string;
  updated_at: string;
}

const MAX_TEMPLATES_PER_HOST = 200;

/**
 * Attempts at recording an outcome before giving up. Each failed attempt means another page's
 * outcome was recorded meanwhile, so with W pages of a template in flight an outcome waits at most
 * about W rounds; this bound only stops a runaway loop.
 */
export const MAX_ATTEMPTS = 500;

/**
 * Template states in the document store, shared by every page worker of every process: reads
 * restore the machine, updates are compare-and-set on `version` and re-run the change on the newest
 * state when they lose a race. A template found from an earlier session with an active program is
 * verified again before this session lets the program extract.
 */
export class StoreTemplateStates implements TemplateStates {
  constructor(
    private readonly templates: Collection<LearnedTemplateRecord>,
    private readonly scope: { userId: string; schemaKey: string },
    private readonly fields: LearnableField[],
    private readonly config: LearnedConfig,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Template creation goes through one registry document per user, schema and host (compare-and-set
   * on its version), so pages arriving at once from several workers agree on one template instead of
   * each founding its own.
   */
  async match(host: string, print: TemplateRef['fingerprint']): Promise<TemplateRef> {
    const registryId = learnedTemplateId(this.scope.userId, this.scope.schemaKey, `host:${host}`);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const registryDoc = await this.hostRegistry(registryId, host);
      const registry = new TemplateRegistry(this.config.templateSimilarity);
      for (const t of registryDoc.templates) registry.add({ id: t.template_id, host, fingerprint: { features: t.fingerprint } });
      const { template, created } = registry.match(host, print);
      if (!created) return template;
      if (registryDoc.templates.length >= MAX_TEMPLATES_PER_HOST) return template; // not stored: its pages stay with the model
      await this.create(template, new TemplateMachine(template.id, this.fields, this.config));
      const registered = await this.templates.findOneAndUpdate(
        { _id: registryId, version: registryDoc.version },
        {
          $set: {
            templates: [...registryDoc.templates, { template_id: template.id, fingerprint: template.fingerprint.features }],
            version: registryDoc.version + 1,
            updated_at: this.now().toISOString(),
          },
        },
      );
      if (registered) return template;
      // Another page registered a template first. If it is the same one (same founding fingerprint), use it;
      // otherwise ours was never visible to anyone: drop it and match again.
      const current = await this.hostRegistry(registryId, host);
      if (current.templates.some((t) => t.template_id === template.id)) return template;
      await this.templates.deleteOne({
        _id: learnedTemplateId(this.scope.userId, this.scope.schemaKey, template.id),
        version: 0,
        pages: 0,
      });
    }
    throw new Error(`learned templates of ${host}: ${MAX_ATTEMPTS} concurrent registrations in a row`);
  }

  private async hostRegistry(id: string, host: string): Promise<HostRegistryRecord> {
    const existing = (await this.templates.findOne({ _id: id })) as unknown as HostRegistryRecord | null;
    if (existing) return existing;
    const at = this.now().toISOString();
    const doc: HostRegistryRecord = {
      _id: id,
      kind: 'host',
      user_id: this.scope.userId,
      schema_key: this.scope.schemaKey,
      host,
      templates: [],
      version: 0,
      created_at: at,
      updated_at: at,
    };
    try {
      await this.templates.insertOne(doc as unknown as LearnedTemplateRecord);
      return doc;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      return (await this.templates.findOne({ _id: id })) as unknown as HostRegistryRecord;
    }
  }

  async read(templateId: string): Promise<TemplateMachine> {
    const doc = await this.load(templateId);
    return doc ? this.machineOf(doc) : new TemplateMachine(templateId, this.fields, this.config);
  }

  async update<T>(templateId: string, counts: Partial<TemplateCounts>, change: (machine: TemplateMachine) => T): Promise<T> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = await this.load(templateId);
      // Deleted meanwhile (through the API): the outcome has nowhere to go; the next page starts afresh.
      if (!doc) return change(new TemplateMachine(templateId, this.fields, this.config));
      const machine = this.machineOf(doc);
      const result = change(machine);
      const saved = await this.templates.findOneAndUpdate(
        { _id: doc._id, version: doc.version },
        {
          $set: {
            state: snapshotOf(machine),
            version: doc.version + 1,
            updated_at: this.now().toISOString(),
          },
          $inc: { pages: counts.pages ?? 0, model_calls: counts.modelCalls ?? 0 },
        },
      );
      if (saved) return result;
    }
    throw new Error(`learned template ${templateId}: ${MAX_ATTEMPTS} concurrent updates in a row; giving up on this outcome`);
  }

  async list() {
    const docs = await this.templates.find(
      { kind: 'template', user_id: this.scope.userId, schema_key: this.scope.schemaKey },
      { sort: { created_at: 1 } },
    );
    return docs.map((doc) => ({
      template: { id: doc.template_id, host: doc.host, fingerprint: { features: doc.fingerprint } },
      machine: this.machineOf(doc),
      counts: { pages: doc.pages, modelCalls: doc.model_calls },
    }));
  }

  async adopt(template: TemplateRef, program: ExtractionProgram): Promise<void> {
    await this.create(template, new TemplateMachine(template.id, this.fields, this.config));
    await this.update(template.id, {}, (machine) => machine.adopt(program));
  }

  private async create(template: TemplateRef, machine: TemplateMachine): Promise<void> {
    const at = this.now().toISOString();
    try {
      await this.templates.insertOne({
        _id: learnedTemplateId(this.scope.userId, this.scope.schemaKey, template.id),
        kind: 'template',
        user_id: this.scope.userId,
        schema_key: this.scope.schemaKey,
        host: template.host,
        template_id: template.id,
        fingerprint: template.fingerprint.features,
        fields: this.fields.map((f) => f.name),
        state: snapshotOf(machine),
        version: 0,
        pages: 0,
        model_calls: 0,
        created_at: at,
        updated_at: at,
      });
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error; // another page (or process) created it first
    }
  }

  private async load(templateId: string): Promise<LearnedTemplateRecord | null> {
    return this.templates.findOne({ _id: learnedTemplateId(this.scope.userId, this.scope.schemaKey, templateId) });
  }

  private machineOf(doc: LearnedTemplateRecord): TemplateMachine {
    return restoreMachine(doc.template_id, this.fields, this.config, doc.state);
  }
}
