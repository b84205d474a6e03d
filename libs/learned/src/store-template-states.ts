import { createHash } from 'node:crypto';
import { DuplicateKeyError } from '@app/core';
import type { JsonSchemaObject } from '@app/schema';
import type { Collection, Doc, DocumentStore } from '@app/storage';
import type { LearnedConfig } from './config';
import { TemplateRegistry, type TemplateRef } from './fingerprint';
import type { ExtractionProgram } from './program';
import { LearnedSession, type ModelCall } from './session';
import { TemplateMachine, type DisagreementLog, type TemplatePhase, type TemplateSnapshot } from './template-machine';
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
   * Which session (crawl) last used the state: a new session re-verifies an active program first.
   * Consumers without a session (extracts) leave it as it is; `''` on a template they founded.
   */
  session_id: string;
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
interface HostRegistryRecord extends Doc {
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
const MAX_ATTEMPTS = 500;

/**
 * Template states in the document store, shared by every page worker of every process: reads
 * restore the machine, updates are compare-and-set on `version` and re-run the change on the newest
 * state when they lose a race. A template found from an earlier session with an active program is
 * verified again before this session lets the program extract.
 */
export class StoreTemplateStates implements TemplateStates {
  constructor(
    private readonly templates: Collection<LearnedTemplateRecord>,
    /**
     * `sessionId`: the crawl. `null` for a consumer that re-verifies through its own trust count
     * (`LearnedSession` option `consumer`): it never resets an active program to verifying for
     * everyone, and does not mark the state as its session's.
     */
    private readonly scope: { userId: string; schemaKey: string; sessionId: string | null },
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
            state: machine.snapshot(),
            ...(this.scope.sessionId !== null ? { session_id: this.scope.sessionId } : {}),
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
        state: machine.snapshot(),
        session_id: this.scope.sessionId ?? '',
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
    const machine = TemplateMachine.restore(doc.template_id, this.fields, this.config, doc.state);
    if (this.scope.sessionId !== null && doc.session_id !== this.scope.sessionId && machine.phase === 'active' && machine.program) {
      machine.adopt(machine.program);
    }
    return machine;
  }
}

/** The consumer name of a user's single-page extracts (docs/learned-extraction.md "Extracts"). */
export const EXTRACTS_CONSUMER = 'extracts';

/**
 * Learned extraction for a single-page consumer (`POST /extract`): the stored templates of the user
 * and schema, shared with the user's crawls. An active program extracts the consumer's pages only
 * after it agreed with the model on `verifyPages` of them; the consumer's pages never reset the
 * template for a crawl that uses it (docs/learned-extraction.md "Extracts").
 */
export function consumerSession(
  templates: Collection<LearnedTemplateRecord>,
  scope: { userId: string; schema: JsonSchemaObject; consumer: string },
  model: ModelCall,
  config: Partial<LearnedConfig> = {},
): LearnedSession {
  return new LearnedSession(
    scope.schema,
    model,
    config,
    (fields, resolved) =>
      new StoreTemplateStates(templates, { userId: scope.userId, schemaKey: schemaKey(scope.schema), sessionId: null }, fields, resolved),
    { consumer: scope.consumer },
  );
}

/** What the API shows of a learned template (no page HTML). */
export interface LearnedTemplateView {
  id: string;
  host: string;
  template_id: string;
  schema_key: string;
  fields: string[];
  phase: TemplatePhase;
  program: ExtractionProgram | null;
  pages: number;
  model_calls: number;
  verification: { pages: number; agreeing: number };
  /** Checks of the current program since it was accepted; `by_field`: on how many each field disagreed. */
  checks: { total: number; disagreeing: number; by_field: Record<string, number> };
  /** Every comparison since the template was founded (verification pages and checks): disagreements per field, and the latest values. */
  disagreements: DisagreementLog;
  retired: Array<{ program_id: string; reason: string; pages_extracted: number }>;
  last_failures: Array<{ field: string; reason: string }>;
  created_at: string;
  updated_at: string;
}

export function toLearnedTemplateView(doc: LearnedTemplateRecord): LearnedTemplateView {
  return {
    id: doc._id,
    host: doc.host,
    template_id: doc.template_id,
    schema_key: doc.schema_key,
    fields: doc.fields,
    phase: doc.state.phase,
    program: doc.state.program,
    pages: doc.pages,
    model_calls: doc.model_calls,
    verification: doc.state.verification,
    checks: { total: doc.state.active.checks, disagreeing: doc.state.active.disagreeingChecks, by_field: doc.state.active.byField ?? {} },
    disagreements: doc.state.disagreements ?? { by_field: {}, recent: [] },
    retired: doc.state.retired.map((r) => ({ program_id: r.program.id, reason: r.reason, pages_extracted: r.pagesExtracted })),
    last_failures: doc.state.last_failures,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

/** The API side: a user's learned templates (optionally of one host), one by id, deletion. */
export class LearnedTemplatesReader {
  constructor(
    private readonly templates: Collection<LearnedTemplateRecord>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Newest first (a stable order for paging while crawls update the templates); `page` as the API's limit/offset. */
  async list(userId: string, host?: string, page: { limit?: number; offset?: number } = {}): Promise<LearnedTemplateView[]> {
    const docs = await this.templates.find(
      host ? { kind: 'template', user_id: userId, host: host.toLowerCase() } : { kind: 'template', user_id: userId },
      {
        sort: { created_at: -1, _id: -1 },
        ...(page.limit !== undefined ? { limit: page.limit } : {}),
        ...(page.offset ? { skip: page.offset } : {}),
        fields: ['host', 'template_id', 'schema_key', 'fields', 'state', 'pages', 'model_calls', 'created_at', 'updated_at', 'user_id'],
      },
    );
    return docs.map(toLearnedTemplateView);
  }

  async get(userId: string, id: string): Promise<LearnedTemplateView | null> {
    const doc = await this.templates.findOne({ _id: id, user_id: userId, kind: 'template' });
    return doc ? toLearnedTemplateView(doc) : null;
  }

  /**
   * Deletes a learned template and takes it out of its host's registry, so the next page of the
   * template founds it again and a new learning round is stored (a template left in the registry
   * without its document would match pages whose outcomes have nowhere to go: learning forever).
   */
  async delete(userId: string, id: string): Promise<boolean> {
    const doc = await this.templates.findOne({ _id: id, user_id: userId, kind: 'template' });
    if (!doc) return false;
    const deleted = await this.templates.deleteOne({ _id: id, user_id: userId, kind: 'template' });
    const registryId = learnedTemplateId(userId, doc.schema_key, `host:${doc.host}`);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const registry = (await this.templates.findOne({ _id: registryId })) as unknown as HostRegistryRecord | null;
      if (!registry || !registry.templates.some((t) => t.template_id === doc.template_id)) break;
      const saved = await this.templates.findOneAndUpdate(
        { _id: registryId, version: registry.version },
        {
          $set: {
            templates: registry.templates.filter((t) => t.template_id !== doc.template_id),
            version: registry.version + 1,
            updated_at: this.now().toISOString(),
          },
        },
      );
      if (saved) break;
    }
    return deleted;
  }
}
