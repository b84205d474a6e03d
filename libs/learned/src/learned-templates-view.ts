import type { Collection } from '@app/storage';
import type { DisagreementLog } from './disagreement-log';
import { ruleKey, type FieldPhase } from './field-state';
import type { ExtractionProgram, FieldRule } from './program';
import { MAX_ATTEMPTS, learnedTemplateId, type HostRegistryRecord, type LearnedTemplateRecord } from './store-template-states';
import type { TemplatePhase } from './template-machine';
import { fieldStatesOf } from './template-snapshot';

/** One field of a template as the API shows it: its rule's phase and counts. */
export interface LearnedFieldView {
  field: string;
  phase: FieldPhase;
  /** The rule verified or in use; null when the rule is "always empty" or none was learned yet. */
  rule: FieldRule | null;
  /** The rule's key (`rule_id` in `disagreements.recent`). */
  rule_id: string | null;
  verification: { pages: number; agreeing: number };
  checks: { total: number; disagreeing: number };
  always_filled: boolean;
  pages_extracted: number;
  /** The model confirmed a value of the rule that grounding does not find on the page: its ungrounded values no longer send the field to the model. */
  ungrounded_confirmed: boolean;
}

/** What the API shows of a learned template (no page HTML). */
export interface LearnedTemplateView {
  id: string;
  host: string;
  template_id: string;
  schema_key: string;
  fields: string[];
  /** The least advanced phase of its fields (`active`: the program fills every field). */
  phase: TemplatePhase;
  /** The accepted rules of the active fields. */
  program: ExtractionProgram | null;
  field_states: LearnedFieldView[];
  pages: number;
  model_calls: number;
  verification: { pages: number; agreeing: number };
  /** Checks since every field's rule was last accepted; `by_field`: on how many each field disagreed. */
  checks: { total: number; disagreeing: number; by_field: Record<string, number> };
  /** Every comparison since the template was founded (verification pages and checks): disagreements per field, and the latest values. */
  disagreements: DisagreementLog;
  retired: Array<{ program_id: string; field: string | null; reason: string; pages_extracted: number }>;
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
    field_states: Object.entries(fieldStatesOf(doc.fields, doc.state)).map(([field, state]) => ({
      field,
      phase: state.phase,
      rule: state.rule ?? null,
      rule_id: state.rule === undefined ? null : ruleKey(state.rule),
      verification: state.verification,
      checks: { total: state.checks.total, disagreeing: state.checks.disagreeing },
      always_filled: state.always_filled,
      pages_extracted: state.pages_extracted,
      ungrounded_confirmed: state.ungrounded_confirmed === true,
    })),
    pages: doc.pages,
    model_calls: doc.model_calls,
    verification: doc.state.verification,
    checks: { total: doc.state.active.checks, disagreeing: doc.state.active.disagreeingChecks, by_field: doc.state.active.byField ?? {} },
    disagreements: doc.state.disagreements ?? { by_field: {}, recent: [] },
    retired: doc.state.retired.map((r) => ({
      program_id: r.program.id,
      field: r.field ?? null,
      reason: r.reason,
      pages_extracted: r.pagesExtracted,
    })),
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

  /** Every learned template of a user and its hosts' registries (the user's deletion). */
  deleteAllOf(userId: string): Promise<number> {
    return this.templates.deleteMany({ user_id: userId });
  }
}
