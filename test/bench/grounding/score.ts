/**
 * Scoring of bench:grounding: each value of the crawl's result items, by its `metadata.fields` entry
 * (`provenance: full`), as a true value (answer (a), the ground truth) or a corrupted one (answer (b)). A corrupted
 * value that occurs on the page anyway (a swapped name that the page also lists) and a value past the length
 * bound are left out of the rates and counted apart, as the issue asks.
 */
import type { Corruption, CorruptionKind } from './corrupt';

export interface ResultItem {
  url: string;
  status: string;
  data: unknown;
  metadata?: { fields?: Record<string, { grounded: boolean | null; reason?: string }> };
}

export interface TrueScore {
  values: number;
  grounded: number;
  /** False alarms: true values said not to be on the page. */
  ungrounded: number;
  /** grounded: null, by reason. */
  unchecked: Record<string, number>;
  grounded_rate: number;
  false_alarm_rate: number;
  /** A few false alarms (path and value), to see why. */
  examples: string[];
}

export interface CorruptScore {
  values: number;
  flagged: number;
  missed: number;
  /** Left out of the rate: the corrupted value occurs on the page. */
  on_page: number;
  /** Left out of the rate: past the length bound (value_too_long). */
  too_long: number;
  unchecked: Record<string, number>;
  flagged_rate: number;
  by_kind: Record<CorruptionKind, { flagged: number; missed: number; on_page: number }>;
  examples: string[];
}

/** Whitespace collapsed, lower case: how "occurs on the page" is judged independently of the grounding code. */
export function plain(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

export function scoreTrue(items: ResultItem[], pages: number): TrueScore & { missing_items: number } {
  const out: TrueScore = { values: 0, grounded: 0, ungrounded: 0, unchecked: {}, grounded_rate: 0, false_alarm_rate: 0, examples: [] };
  for (const item of items) {
    for (const [path, value] of leafValues(item.data)) {
      const field = item.metadata?.fields?.[path];
      out.values++;
      if (field?.grounded === true) out.grounded++;
      else if (field?.grounded === false) {
        out.ungrounded++;
        if (out.examples.length < 10) out.examples.push(`${new URL(item.url).pathname} ${path}: ${clip(value)}`);
      } else out.unchecked[field?.reason ?? 'no_entry'] = (out.unchecked[field?.reason ?? 'no_entry'] ?? 0) + 1;
    }
  }
  const judged = out.grounded + out.ungrounded;
  out.grounded_rate = judged === 0 ? 0 : out.grounded / judged;
  out.false_alarm_rate = judged === 0 ? 0 : out.ungrounded / judged;
  return { ...out, missing_items: pages - items.filter((i) => i.status === 'completed').length };
}

/** `pageText(path)`: the page as the model saw it (markdown, title and attribute values), for the "on the page" rule. */
export function scoreCorrupted(
  items: ResultItem[],
  corruptions: Map<string, Corruption[]>,
  pageText: (path: string) => string,
): CorruptScore {
  const kinds: CorruptionKind[] = ['digit', 'name', 'date', 'other_page'];
  const out: CorruptScore = {
    values: 0,
    flagged: 0,
    missed: 0,
    on_page: 0,
    too_long: 0,
    unchecked: {},
    flagged_rate: 0,
    by_kind: Object.fromEntries(kinds.map((k) => [k, { flagged: 0, missed: 0, on_page: 0 }])) as CorruptScore['by_kind'],
    examples: [],
  };
  for (const item of items) {
    const path = new URL(item.url).pathname;
    for (const corruption of corruptions.get(path) ?? []) {
      out.values++;
      const field = item.metadata?.fields?.[corruption.path];
      const kind = out.by_kind[corruption.kind];
      if (plain(pageText(path)).includes(plain(corruption.value))) {
        out.on_page++;
        kind.on_page++;
      } else if (field?.reason === 'value_too_long') out.too_long++;
      else if (field?.grounded === false) {
        out.flagged++;
        kind.flagged++;
      } else if (field?.grounded === true) {
        out.missed++;
        kind.missed++;
        if (out.examples.length < 10) out.examples.push(`${path} ${corruption.path} (${corruption.kind}): ${clip(corruption.value)}`);
      } else out.unchecked[field?.reason ?? 'no_entry'] = (out.unchecked[field?.reason ?? 'no_entry'] ?? 0) + 1;
    }
  }
  const judged = out.flagged + out.missed;
  out.flagged_rate = judged === 0 ? 0 : out.flagged / judged;
  return out;
}

/** The non-empty text and number leaves of a result's data, by path (`author[1]`), as metadata.fields names them. */
function leafValues(data: unknown): Array<[string, string | number]> {
  const out: Array<[string, string | number]> = [];
  if (!data || typeof data !== 'object') return out;
  for (const [field, value] of Object.entries(data as Record<string, unknown>)) {
    if ((typeof value === 'string' && value.trim() !== '') || typeof value === 'number') out.push([field, value]);
    if (Array.isArray(value))
      value.forEach((item, i) => {
        if ((typeof item === 'string' && item.trim() !== '') || typeof item === 'number') out.push([`${field}[${i}]`, item]);
      });
  }
  return out;
}

function clip(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
