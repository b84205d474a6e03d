import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import type { ConversionResult } from '@app/content';
import { AppError } from '@app/core';
import type { FieldRule, GroundingCheck } from '@app/learned';
import { MODEL_LABEL_CAP } from '@app/llm';
import { BoundedLabel, METRICS, type Metrics } from '@app/observability';
import {
  PageGrounding,
  formatPath,
  groundData,
  type FieldOrigin,
  type FieldProvenance,
  type LeafKind,
  type ProvenanceSettings,
  type SelectorView,
} from '@app/provenance';
import type { JsonSchemaObject } from '@app/schema';
import type { CoercedToNull } from './coerce';
import type { ExtractOutput } from './extraction.service';

const OUTCOMES = ['grounded', 'ungrounded', 'unchecked'] as const;
/** Paths named in a failed page's message. */
const NAMED_PATHS = 10;

/** The model call whose answer is in the result: what it was given is what its values are grounded on. */
export interface GroundedCall {
  provider: string;
  model: string;
  /** The content it was given (ExtractOutput.content). */
  content: string;
  /** The content was an excerpt of the page (a learned partial call), not the page. */
  excerpt: boolean;
  /** Values of its answer that coercion replaced by null (ExtractOutput.nulled). */
  nulled?: ReadonlyArray<CoercedToNull>;
}

/** What grounding needs of a model call's output; `excerpt`: it was given an excerpt, not the page. */
export function groundedCallOf(out: ExtractOutput, excerpt: boolean): GroundedCall {
  return { provider: out.target.provider, model: out.target.model, content: out.content, excerpt, nulled: out.nulled };
}

export interface GroundResultInput {
  page: PageGrounding;
  data: unknown;
  schema: JsonSchemaObject;
  settings: ProvenanceSettings;
  call?: GroundedCall;
  /** Learned rules that filled fields of the result (LearnedResult.rules). */
  rules?: Record<string, FieldRule>;
}

/** What a result item's `metadata` gains (docs/api.md "Results and downloads"). */
export interface ProvenanceMetadata {
  fields?: Record<string, FieldProvenance>;
  fields_omitted?: number;
  ungrounded_fields: number;
}

export interface GroundedResult {
  /** The data after the policy. */
  data: unknown;
  metadata: ProvenanceMetadata;
  /** `grounding: fail_page` and a value not on the page: the page fails with this error. */
  failure?: AppError;
}

/**
 * Grounds a page's extracted data on the page (docs/provenance.md): every value's source, whether it is on the
 * page, the evidence; applies the page's grounding policy; counts the model's values by outcome for
 * `gleaner_field_grounding_total`, so a dashboard shows which model invents most.
 */
@Injectable()
export class GroundingService {
  private readonly counter: Counter<'provider' | 'model' | 'outcome'>;
  private readonly models: BoundedLabel;
  private readonly seen = new Set<string>();

  constructor(@Inject(METRICS) metrics: Metrics) {
    // The same bounded label as gleaner_llm_calls_total: a model keeps its name in both series, or is `other` in both.
    this.models = metrics.boundedLabel('llm_model', MODEL_LABEL_CAP);
    this.counter = metrics.once(
      'gleaner_field_grounding_total',
      () =>
        new Counter({
          name: 'gleaner_field_grounding_total',
          help: 'Values of model answers checked against their page, by provider, model (the first 20 per process, then "other") and outcome: grounded (found on the page), ungrounded (not found: invented, or from elsewhere), unchecked (booleans, enums, or the check gave up). Null values are not counted. Unit: values.',
          labelNames: ['provider', 'model', 'outcome'],
          registers: [metrics.registry],
        }),
    );
  }

  /** The page as grounding reads it: the markdown a full model call gets, its title and attribute values. */
  pageOf(url: string, content: ConversionResult): PageGrounding {
    return new PageGrounding({ url, text: content.markdown, title: content.metadata.title, attributes: content.attributes });
  }

  /** The drift guard of learned extraction: whether an active rule's value is on the page. */
  learnedGuard(page: PageGrounding): GroundingCheck {
    return (field, value) => {
      if (!field.items) return page.grounded(value, field.kind satisfies LeafKind);
      return itemsGrounded(page, field.items, records(value));
    };
  }

  ground(input: GroundResultInput): GroundedResult {
    const { page, call, rules } = input;
    const modelIndex = call ? page.sent(call.content, call.excerpt ? 'excerpt' : 'page') : page.pageText;
    const selectors = new Map<string, SelectorView>();
    const origin = (field: string): FieldOrigin => {
      const rule = rules?.[field];
      if (!rule) return { source: 'model', index: modelIndex };
      let selector = selectors.get(field);
      if (!selector) selectors.set(field, (selector = selectorView(rule)));
      return { source: 'selectors', index: page.pageText, selector };
    };
    const nulled = call?.nulled?.length ? new Map(call.nulled.map((n) => [formatPath(n.path), n.value])) : undefined;
    const outcome = groundData({
      data: input.data,
      schema: input.schema,
      origin,
      settings: input.settings,
      baseUrl: page.page.url,
      ...(nulled ? { nulled } : {}),
    });
    if (call) this.count(call, outcome.bySource.model);
    const metadata: ProvenanceMetadata = {
      ...(outcome.fields ? { fields: outcome.fields } : {}),
      ...(outcome.fieldsOmitted > 0 ? { fields_omitted: outcome.fieldsOmitted } : {}),
      ungrounded_fields: outcome.ungrounded.length,
    };
    if (!outcome.failed) return { data: outcome.data, metadata };
    const named = outcome.ungrounded.slice(0, NAMED_PATHS).join(', ');
    const more = outcome.ungrounded.length > NAMED_PATHS ? ` and ${outcome.ungrounded.length - NAMED_PATHS} more` : '';
    const failure = new AppError(
      'upstream-failure',
      `${outcome.ungrounded.length === 1 ? 'A value is' : `${outcome.ungrounded.length} values are`} not on the page (grounding: fail_page): ${named}${more}.`,
      { category: 'ungrounded_output' },
    );
    return { data: outcome.data, metadata, failure };
  }

  private count(call: GroundedCall, counts: { grounded: number; ungrounded: number; unchecked: number }): void {
    const model = this.models.label(`${call.provider}/${call.model}`) === BoundedLabel.OTHER ? BoundedLabel.OTHER : call.model;
    const labels = { provider: call.provider, model };
    const key = `${call.provider}/${model}`;
    if (!this.seen.has(key)) {
      // Every outcome from 0 for a model: "no ungrounded values" is a series at 0, not a missing one.
      this.seen.add(key);
      for (const outcome of OUTCOMES) this.counter.inc({ ...labels, outcome }, 0);
    }
    for (const outcome of OUTCOMES) if (counts[outcome] > 0) this.counter.inc({ ...labels, outcome }, counts[outcome]);
  }
}

/** A learned rule as `metadata.fields[].selector` shows it. */
export function selectorView(rule: FieldRule): SelectorView {
  const source = rule.source;
  return {
    css: rule.selector,
    read: source.kind === 'attr' ? 'attribute' : source.kind,
    ...(source.kind === 'attr' ? { attribute: source.name } : {}),
    ...(source.kind === 'after-label' ? { label: source.label } : {}),
    ...(rule.parentLabel !== undefined ? { parent_label: rule.parentLabel } : {}),
  };
}

type GuardedField = Parameters<GroundingCheck>[0];

function records(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value)
    ? value.filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null && !Array.isArray(i))
    : [];
}

/**
 * A list of objects: each property's values over the items, by the property's kind (false when one is not on the
 * page); a list nested in the items (`tags`, `variants`) by its values, or its sub-items' properties, over all items.
 */
function itemsGrounded(page: PageGrounding, properties: GuardedField[], items: Array<Record<string, unknown>>): boolean | null {
  let verdict: boolean | null = null;
  for (const property of properties) {
    const values = items.map((i) => i[property.name]);
    const one = property.items
      ? itemsGrounded(page, property.items, values.flatMap(records))
      : page.grounded(values.flat(), property.kind satisfies LeafKind);
    if (one === false) return false;
    if (one === true) verdict = true;
  }
  return verdict;
}
