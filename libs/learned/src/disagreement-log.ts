/**
 * Why a page's field went to the model while its template had a rule for it. `ungrounded`: the rule's value is not
 * on the page as a reader sees it (docs/provenance.md "Learned programs").
 */
export type CheckReason = 'spot-check' | 'schema' | 'empty-field' | 'ungrounded' | 'reverification';

/** One field on which program and model disagreed on a page (values clipped: see `clipValue`). */
export interface Disagreement {
  url: string;
  field: string;
  /** The page's role for the field: a verification page, or why an active rule's page went to the model. */
  role: 'verification' | CheckReason;
  /** The program in use for the template's active fields (null when none is). */
  program_id: string | null;
  /** The field's rule compared with the model (`ruleKey`; field_states shows it). */
  rule_id: string;
  program: unknown;
  model: unknown;
}

/** Per-field disagreement counts since the template was founded, and the latest disagreeing values. */
export interface DisagreementLog {
  by_field: Record<string, number>;
  /** The latest disagreeing fields, oldest first (at most `RECENT_DISAGREEMENTS`). */
  recent: Disagreement[];
}

/** Disagreeing values kept per template: enough to see a pattern (an editor listed as author), not a log. */
export const RECENT_DISAGREEMENTS = 10;
const CLIP_CHARS = 200;
const CLIP_ITEMS = 10;

/** A value as the disagreement log keeps it: long texts and lists cut, so one page cannot bloat the template's state. */
export function clipValue(value: unknown): unknown {
  if (typeof value === 'string') return value.length > CLIP_CHARS ? `${value.slice(0, CLIP_CHARS)}…` : value;
  if (Array.isArray(value)) {
    const items = value.slice(0, CLIP_ITEMS).map(clipValue);
    return value.length > CLIP_ITEMS ? [...items, `… ${value.length - CLIP_ITEMS} more`] : items;
  }
  return value === undefined ? null : value;
}

export function emptyLog(): DisagreementLog {
  return { by_field: {}, recent: [] };
}

/** Counts the disagreement and keeps its values among the latest. */
export function logDisagreement(log: DisagreementLog, entry: Disagreement): void {
  log.by_field[entry.field] = (log.by_field[entry.field] ?? 0) + 1;
  log.recent.push({ ...entry, program: clipValue(entry.program), model: clipValue(entry.model) });
  log.recent.splice(0, Math.max(0, log.recent.length - RECENT_DISAGREEMENTS));
}
