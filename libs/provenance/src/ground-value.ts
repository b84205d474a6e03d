import { decodeHTML } from 'entities';
import { findDates, isoDateKeys } from './date-forms';
import type { GroundingIndex, SegmentKind } from './grounding-index';
import { identifierDigits, numberTextReadings, readingOf } from './number-forms';
import { hasUnsegmentedScript, tokenize } from './text-tokens';
import { looksLikeUrl, urlKey } from './url-forms';

/** How a leaf's value is checked: by its words, as a number, a date, a URL; `unchecked` (booleans, enums) is not. */
export type LeafKind = 'string' | 'number' | 'integer' | 'date' | 'date-time' | 'url' | 'unchecked';

/** Why a value was not checked (`grounded: null`), docs/provenance.md "Reasons". */
export type UncheckedReason =
  'not_checkable' | 'value_too_long' | 'unsupported_script' | 'budget_exhausted' | 'page_too_large' | 'leaf_limit';

/** Where a value was found: a snippet around it, and its offsets in the text the model saw (text segments). */
export interface Evidence {
  text: string;
  in: SegmentKind;
  start?: number;
  end?: number;
  attribute?: string;
}

export type Verdict = { grounded: true; evidence: Evidence } | { grounded: false } | { grounded: null; reason: UncheckedReason };

const BUDGET = Symbol('budget');
type Found = { first: number; last: number } | { url: NonNullable<ReturnType<GroundingIndex['urls']['get']>> } | undefined | typeof BUDGET;

/**
 * Whether `value` occurs on the indexed page in a normalised form (docs/provenance.md "Normalisation"). Bounded:
 * values longer than `maxValueChars` are not checked, and every search takes from the page's work budget.
 */
export function groundValue(index: GroundingIndex, value: string | number, kind: LeafKind, baseUrl?: string): Verdict {
  if (kind === 'unchecked') return { grounded: null, reason: 'not_checkable' };
  const memoKey = `${kind}\u0000${typeof value}\u0000${value}`;
  const known = index.memo.get(memoKey) as Verdict | undefined;
  if (known) return known;
  const verdict = check(index, value, kind, baseUrl);
  if (verdict.grounded !== null || verdict.reason !== 'budget_exhausted') index.memo.set(memoKey, verdict);
  return verdict;
}

function check(index: GroundingIndex, value: string | number, kind: LeafKind, baseUrl?: string): Verdict {
  if (index.budget <= 0) return { grounded: null, reason: 'budget_exhausted' };
  const found = typeof value === 'number' ? findNumber(index, value, kind) : findText(index, value, kind, baseUrl);
  if (found === BUDGET) return { grounded: null, reason: 'budget_exhausted' };
  if (found && 'reason' in found) return found;
  if (found) return { grounded: true, evidence: evidenceOf(index, found) };
  if (typeof value === 'string' && hasUnsegmentedScript(value)) return { grounded: null, reason: 'unsupported_script' };
  if (index.clipped) return { grounded: null, reason: 'page_too_large' };
  return { grounded: false };
}

function findNumber(index: GroundingIndex, value: number, kind: LeafKind): Found {
  const reading = readingOf(value);
  if (reading === undefined) return undefined;
  const keys = [`n:${reading}`];
  if (kind === 'integer') keys.push(`r:${reading}`);
  if (!reading.includes('.') && reading.length >= 5) keys.push(`g:${reading}`);
  return findKeys(index, keys);
}

function findText(
  index: GroundingIndex,
  raw: string,
  kind: LeafKind,
  baseUrl?: string,
): Found | { grounded: null; reason: UncheckedReason } {
  const value = decodeHTML(raw).trim();
  if (value.length > index.limits.maxValueChars) return { grounded: null, reason: 'value_too_long' };
  if (kind === 'url' || looksLikeUrl(value)) {
    const key = urlKey(value, baseUrl);
    const hit = key === undefined ? undefined : index.urls.get(key);
    if (hit) return { url: hit };
  }
  const words = tokenize(value);
  if (words.keys.length === 0) return { grounded: null, reason: 'not_checkable' };
  const sequence = findSequence(index, words.keys);
  if (sequence) return sequence;
  if (value.includes('\n')) {
    const lines = findLines(index, value);
    if (lines !== undefined) return lines;
  }
  const keys: string[] = [];
  if (kind === 'date' || kind === 'date-time') keys.push(...(isoDateKeys(value) ?? []));
  for (const reading of numberTextReadings(words, value) ?? []) keys.push(`n:${reading}`);
  const digits = identifierDigits(value);
  if (digits) keys.push(`g:${digits}`);
  // A text that is one date in any common form: `March 5, 2024` is found as `5 March 2024` or `2024-03-05`.
  for (const date of findDates(words, value)) if (date.first === 0 && date.last === words.keys.length - 1) keys.push(date.key);
  return findKeys(index, keys);
}

/** The first occurrence of the words in order, within one segment; looked up by the value's rarest word. */
function findSequence(index: GroundingIndex, query: string[]): Found {
  index.budget -= query.length;
  let rarest = -1;
  let positions: readonly number[] = [];
  for (let j = 0; j < query.length; j++) {
    const list = index.positions(query[j]);
    if (list.length === 0) return undefined;
    if (rarest < 0 || list.length < positions.length) {
      rarest = j;
      positions = list;
    }
  }
  const n = index.keys.length;
  for (const at of positions) {
    const first = at - rarest;
    const last = first + query.length - 1;
    if (first < 0 || last >= n || index.segmentOf[first] !== index.segmentOf[last]) continue;
    index.budget -= query.length;
    if (index.budget < 0) return BUDGET;
    let k = 0;
    while (k < query.length && index.keys[first + k] === query[k]) k++;
    if (k === query.length) return { first, last };
  }
  return undefined;
}

/**
 * A text of several lines (an article body, an address) whose lines are on the page but not one after the other:
 * the page puts a caption, an advertisement or a link list between two paragraphs. Each line with words must be
 * found whole, in any order; the evidence runs from the first line's match to the last one's when they are in
 * order in one segment. Undefined when a line is missing (the value is then tried as a number or a date).
 */
function findLines(index: GroundingIndex, value: string): Found {
  let first: { first: number; last: number } | undefined;
  let last: { first: number; last: number } | undefined;
  let lines = 0;
  for (const line of value.split('\n')) {
    const words = tokenize(line);
    if (words.keys.length === 0) continue;
    const found = findSequence(index, words.keys);
    if (found === BUDGET) return BUDGET;
    if (found === undefined || !('first' in found)) return undefined;
    lines++;
    first ??= found;
    last = found;
  }
  if (!first || !last || lines < 2) return undefined;
  const ordered = last.first >= first.first && index.segmentOf[first.first] === index.segmentOf[last.last];
  return ordered ? { first: first.first, last: last.last } : first;
}

function findKeys(index: GroundingIndex, keys: string[]): Found {
  index.budget -= keys.length;
  if (index.budget < 0) return BUDGET;
  for (const key of keys) {
    const spans = index.spans.get(key);
    if (spans && spans.length >= 2) return { first: spans[0], last: spans[1] };
  }
  return undefined;
}

/** Context shown each side of a match, and the longest match shown whole. */
const CONTEXT = 40;
const MAX_MATCH = 160;

function evidenceOf(index: GroundingIndex, found: Exclude<Found, undefined | typeof BUDGET>): Evidence {
  if ('url' in found) {
    const segment = index.segments[found.url.segment];
    if (found.url.start === undefined) return { text: clip(segment.text), in: segment.in, attribute: found.url.attribute };
    return { text: snippet(segment.text, found.url.start, found.url.end!), in: segment.in, start: found.url.start, end: found.url.end };
  }
  const segment = index.segments[index.segmentOf[found.first]];
  const start = index.starts[found.first];
  const end = index.ends[found.last];
  if (segment.in === 'attribute') return { text: snippet(segment.text, start, end), in: 'attribute', attribute: segment.attribute };
  if (segment.in === 'title') return { text: snippet(segment.text, start, end), in: 'title' };
  return { text: snippet(segment.text, start, end), in: segment.in, start, end };
}

/** The match with some context each side, whitespace collapsed, never cutting a surrogate pair. */
export function snippet(text: string, start: number, end: number): string {
  const from = safeCut(text, Math.max(0, start - CONTEXT));
  const to = safeCut(text, Math.min(text.length, end + CONTEXT));
  const match = end - start > MAX_MATCH ? `${text.slice(start, safeCut(text, start + MAX_MATCH))}…` : text.slice(start, end);
  const out = `${from > 0 ? '…' : ''}${text.slice(from, start)}${match}${text.slice(end, to)}${to < text.length ? '…' : ''}`;
  return out.replace(/\s+/g, ' ').trim();
}

function clip(text: string): string {
  return text.length > MAX_MATCH ? `${text.slice(0, safeCut(text, MAX_MATCH))}…` : text;
}

/** An offset moved back off the low half of a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}
