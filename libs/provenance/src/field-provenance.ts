import type { JsonSchemaObject } from '@app/schema';
import { groundValue, type Evidence, type UncheckedReason } from './ground-value';
import type { GroundingIndex } from './grounding-index';
import { GROUNDING_LIMITS, type GroundingLimits } from './grounding-limits';
import { leavesOf, type Leaf } from './leaves';
import type { ProvenanceSettings } from './provenance-options';

/** Who produced a value: the model's answer, or a learned selector program (docs/learned-extraction.md). */
export type ValueSource = 'model' | 'selectors';

/** The learned rule that read a value: its CSS selector and what it read from the matched element. */
export interface SelectorView {
  css: string;
  read: 'text' | 'own-text' | 'after-label' | 'attribute';
  attribute?: string;
  /** `after-label`: the label the value follows. */
  label?: string;
  /** Only elements whose parent's text starts with this label. */
  parent_label?: string;
}

/** Why a value is null (docs/provenance.md "Reasons"). */
export type NullReason = 'model_null' | 'model_empty' | 'coerce_failed' | 'not_on_page' | 'ungrounded';

/** One leaf's entry in `metadata.fields`. */
export interface FieldProvenance {
  source: ValueSource;
  /** true: found on the page; false: not found; null: a null value, or one the check does not or could not judge. */
  grounded: boolean | null;
  selector?: SelectorView;
  evidence?: Evidence;
  reason?: NullReason | UncheckedReason;
  /** The value the policy (`ungrounded`) or coercion (`coerce_failed`) replaced by null (texts cut at 200 characters). */
  value?: unknown;
}

/** Where a top-level field's values came from, and the text they are checked against. */
export interface FieldOrigin {
  source: ValueSource;
  /** What the model was given (the page or an excerpt), or the page as a model would see it for a program's values. */
  index: GroundingIndex;
  selector?: SelectorView;
}

export interface GroundingCounts {
  grounded: number;
  ungrounded: number;
  unchecked: number;
  /** Null or empty values. */
  empty: number;
}

export interface ProvenanceInput {
  data: unknown;
  schema: JsonSchemaObject;
  origin: (field: string) => FieldOrigin;
  settings: ProvenanceSettings;
  /** Relative URL values resolve against it. */
  baseUrl?: string;
  /**
   * Model values that coercion replaced by null, by leaf path (formatPath): the model's own value. An empty text is
   * `model_empty`, anything else `coerce_failed`.
   */
  nulled?: ReadonlyMap<string, unknown>;
  limits?: GroundingLimits;
}

export interface ProvenanceOutcome {
  /** The data after the policy (`null_ungrounded` replaced ungrounded values by null; a copy, the input is not changed). */
  data: unknown;
  /** `metadata.fields` (absent with `provenance: off`). */
  fields?: Record<string, FieldProvenance>;
  /** Leaves past `maxListedLeaves`, not listed. */
  fieldsOmitted: number;
  /** Paths of the values not found on the page (before the policy). */
  ungrounded: string[];
  bySource: Record<ValueSource, GroundingCounts>;
  /** `fail_page` and at least one ungrounded value: the page fails (error_category `ungrounded_output`). */
  failed: boolean;
}

const CLIP = 200;

/**
 * Every leaf of a page's data checked against the page (docs/provenance.md): its source, whether it is grounded,
 * the evidence, why it is null; then the grounding policy. Bounded by `limits` whatever the data's size.
 */
export function groundData(input: ProvenanceInput): ProvenanceOutcome {
  const limits = input.limits ?? GROUNDING_LIMITS;
  const { settings } = input;
  const data = settings.grounding === 'null_ungrounded' ? structuredClone(input.data) : input.data;
  const { leaves, omitted } = leavesOf(data, input.schema, limits.maxListedLeaves);
  const full = settings.provenance === 'full';
  const fields: Record<string, FieldProvenance> | undefined = settings.provenance === 'off' ? undefined : {};
  const bySource: Record<ValueSource, GroundingCounts> = { model: counts(), selectors: counts() };
  const ungrounded: string[] = [];
  let checked = 0;
  for (const leaf of leaves) {
    const origin = input.origin(leaf.field);
    const tally = bySource[origin.source];
    const entry: FieldProvenance = { source: origin.source, grounded: null };
    if (full && origin.selector) entry.selector = origin.selector;
    if (isEmpty(leaf.value)) {
      tally.empty++;
      if (full) Object.assign(entry, emptyReason(leaf, origin.source, input.nulled));
    } else if (typeof leaf.value !== 'string' && typeof leaf.value !== 'number') {
      tally.unchecked++;
      if (full) entry.reason = 'not_checkable';
    } else if (leaf.kind !== 'unchecked' && checked >= limits.maxCheckedLeaves) {
      tally.unchecked++;
      if (full) entry.reason = 'leaf_limit';
    } else {
      if (leaf.kind !== 'unchecked') checked++;
      const verdict = groundValue(origin.index, leaf.value, leaf.kind, input.baseUrl);
      entry.grounded = verdict.grounded;
      if (verdict.grounded === true) {
        tally.grounded++;
        if (full) entry.evidence = verdict.evidence;
      } else if (verdict.grounded === false) {
        tally.ungrounded++;
        ungrounded.push(leaf.path);
        if (settings.grounding === 'null_ungrounded') {
          if (full) {
            entry.reason = 'ungrounded';
            entry.value = clip(leaf.value);
          }
          replace(leaf, null);
        }
      } else {
        tally.unchecked++;
        if (full) entry.reason = verdict.reason;
      }
    }
    if (fields) fields[leaf.path] = entry;
  }
  return {
    data,
    ...(fields ? { fields } : {}),
    fieldsOmitted: omitted,
    ungrounded,
    bySource,
    failed: settings.grounding === 'fail_page' && ungrounded.length > 0,
  };
}

/** Why a leaf is null or empty: the learned rule found nothing, the model said null or nothing, or coercion could not read it. */
function emptyReason(leaf: Leaf, source: ValueSource, nulled?: ReadonlyMap<string, unknown>): Pick<FieldProvenance, 'reason' | 'value'> {
  if (source === 'selectors') return { reason: 'not_on_page' };
  if (leaf.value === null && nulled?.has(leaf.path)) {
    const original = nulled.get(leaf.path);
    if (typeof original === 'string' && original.trim() === '') return { reason: 'model_empty' };
    return { reason: 'coerce_failed', value: clip(original) };
  }
  return { reason: leaf.value === null || leaf.value === undefined ? 'model_null' : 'model_empty' };
}

function counts(): GroundingCounts {
  return { grounded: 0, ungrounded: 0, unchecked: 0, empty: 0 };
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function replace(leaf: Leaf, value: null): void {
  if (Array.isArray(leaf.parent)) leaf.parent[leaf.key as number] = value;
  else if (leaf.parent) leaf.parent[leaf.key as string] = value;
}

function clip(value: unknown): unknown {
  return typeof value === 'string' && value.length > CLIP ? `${value.slice(0, CLIP)}…` : value;
}
