import { findDates } from './date-forms';
import { GROUNDING_LIMITS, type GroundingLimits } from './grounding-limits';
import { IDENTIFIER_SEPARATORS, MIN_IDENTIFIER_DIGITS, NUMBER_SEPARATORS, numberReadings, roundedReading } from './number-forms';
import { isDigits, tokenizeInto, type Tokens } from './text-tokens';
import { markdownTargets, urlKey } from './url-forms';

/** Where a piece of indexed text comes from. */
export type SegmentKind = 'page' | 'excerpt' | 'title' | 'attribute';

export interface IndexedSegment {
  in: SegmentKind;
  /** `attribute` segments: the attribute's name. */
  attribute?: string;
  text: string;
  /** Its words are global word indices [firstWord, endWord). */
  firstWord: number;
  endWord: number;
}

/** What a page gives grounding: the text the model saw (or would see), the title, attribute values. */
export interface GroundingSource {
  /** Markdown or plain text; `](target)` link targets are read as URLs, not words. */
  text?: { in: 'page' | 'excerpt'; text: string };
  title?: string;
  /** `content`, `alt`, `title`, `value`, `datetime` are text; `href` and `src` are URLs (absolute, or against `baseUrl`). */
  attributes?: ReadonlyArray<{ name: string; value: string }>;
  baseUrl?: string;
}

/** Attributes whose values are text a value may be taken from (docs/provenance.md "What counts as the page"). */
export const TEXT_ATTRIBUTES = new Set(['content', 'alt', 'title', 'value', 'datetime']);
/** Attributes whose values are addresses (for URL values only). */
export const URL_ATTRIBUTES = new Set(['href', 'src']);

export interface UrlHit {
  segment: number;
  start?: number;
  end?: number;
  attribute?: string;
}

/**
 * A page's words, numbers, dates and URLs, indexed once (linear in the page's size) so that each value is found
 * by lookups instead of a scan of the page. Words are looked up by the value's rarest word, then compared in
 * order; numbers (`n:1299`), rounded numbers (`r:1300`), identifiers in digit groups (`g:9780316125581`), days
 * (`d:2024-03-05`) and months (`m:2024-03`) by their keys; URLs by their normal form.
 */
export class GroundingIndex {
  readonly keys: string[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** Segment of each word. */
  readonly segmentOf: number[] = [];
  readonly segments: IndexedSegment[] = [];
  readonly words = new Map<string, number[]>();
  /** Synthetic keys → flattened [firstWord, lastWord] pairs. */
  readonly spans = new Map<string, number[]>();
  readonly urls = new Map<string, UrlHit>();
  /** Some text was past `maxIndexedChars` (or attributes past their caps) and was not indexed. */
  clipped = false;
  /** Token comparisons left for this page's searches. */
  budget: number;
  /** Verdicts already given (a learned rule's value is checked for the drift guard and again for the result). */
  readonly memo = new Map<string, unknown>();

  constructor(
    source: GroundingSource,
    readonly limits: GroundingLimits = GROUNDING_LIMITS,
  ) {
    this.budget = limits.workBudget;
    let room = limits.maxIndexedChars;
    if (source.text) {
      const text = source.text.text;
      const { skip, targets } = markdownTargets(text.length > room ? text.slice(0, room) : text);
      const segment = this.addText(source.text.in, text, skip, room);
      for (const target of targets) {
        const key = urlKey(target.url, source.baseUrl);
        if (key && !this.urls.has(key)) this.urls.set(key, { segment, start: target.start, end: target.end });
      }
      room -= Math.min(room, text.length);
    }
    if (source.title) {
      this.addText('title', source.title, [], room);
      room -= Math.min(room, source.title.length);
    }
    const attributes = source.attributes ?? [];
    if (attributes.length > limits.maxAttributes) this.clipped = true;
    for (const { name, value } of attributes.slice(0, limits.maxAttributes)) {
      const clipped = value.length > limits.maxAttributeChars ? value.slice(0, limits.maxAttributeChars) : value;
      if (URL_ATTRIBUTES.has(name)) {
        const key = urlKey(clipped, source.baseUrl);
        if (key && !this.urls.has(key)) {
          this.segments.push({ in: 'attribute', attribute: name, text: clipped, firstWord: this.keys.length, endWord: this.keys.length });
          this.urls.set(key, { segment: this.segments.length - 1, attribute: name });
        }
      } else if (TEXT_ATTRIBUTES.has(name) && room > 0) {
        this.addText('attribute', clipped, [], room, name);
        room -= Math.min(room, clipped.length);
      }
    }
  }

  /** The word positions of a word key (empty when absent). */
  positions(key: string): readonly number[] {
    return this.words.get(key) ?? NONE;
  }

  private addText(kind: SegmentKind, text: string, skip: number[], room: number, attribute?: string): number {
    const to = Math.min(text.length, room);
    if (to < text.length) this.clipped = true;
    const segment = this.segments.length;
    const first = this.keys.length;
    // The first segment (the page's text, most of the words) is read straight into the index's arrays.
    const tokens: Tokens = first === 0 ? this : { keys: [], starts: [], ends: [] };
    tokenizeInto(tokens, text, 0, to, skip);
    for (let i = 0; i < tokens.keys.length; i++) {
      const at = first + i;
      const key = tokens.keys[i];
      if (tokens !== this) {
        this.keys.push(key);
        this.starts.push(tokens.starts[i]);
        this.ends.push(tokens.ends[i]);
      }
      this.segmentOf.push(segment);
      const list = this.words.get(key);
      if (list) list.push(at);
      else this.words.set(key, [at]);
    }
    this.segments.push({ in: kind, ...(attribute ? { attribute } : {}), text, firstWord: first, endWord: this.keys.length });
    this.addNumbers(tokens, text, first);
    for (const date of findDates(tokens, text)) this.addSpan(date.key, first + date.first, first + date.last);
    return segment;
  }

  /**
   * Numbers and identifiers: every run of up to five digit groups joined by single number separators gives its
   * readings (from each of its groups on, so `12, 1,299.00` still has `1299`), every run of up to six digit groups
   * joined by at most two identifier separators its digits (`(555) 123-4567` → `g:5551234567`).
   */
  private addNumbers(tokens: Tokens, text: string, first: number): void {
    const { keys, starts, ends } = tokens;
    for (let i = 0; i < keys.length; i++) {
      if (!isDigits(keys[i])) continue;
      const groups = [keys[i]];
      const seps: string[] = [];
      this.addReadings(numberReadings(groups, seps), first + i, first + i);
      for (let j = i + 1; j < keys.length && j - i < 5 && isDigits(keys[j]); j++) {
        const gap = text.slice(ends[j - 1], starts[j]);
        const sep = gap.length === 1 ? gap.normalize('NFKC') : '';
        if (!NUMBER_SEPARATORS.has(sep)) break;
        groups.push(keys[j]);
        seps.push(sep);
        this.addReadings(numberReadings(groups, seps), first + i, first + j);
      }
      let digits = keys[i];
      for (let j = i + 1; j < keys.length && j - i < 6 && isDigits(keys[j]); j++) {
        const gap = text.slice(ends[j - 1], starts[j]);
        if (gap.length === 0 || gap.length > 2 || ![...gap].every((c) => IDENTIFIER_SEPARATORS.has(c))) break;
        digits += keys[j];
        if (digits.length >= MIN_IDENTIFIER_DIGITS) this.addSpan(`g:${digits}`, first + i, first + j);
      }
      if (keys[i].length >= MIN_IDENTIFIER_DIGITS) this.addSpan(`g:${keys[i]}`, first + i, first + i);
    }
  }

  private addReadings(readings: string[], from: number, to: number): void {
    for (const reading of readings) {
      this.addSpan(`n:${reading}`, from, to);
      if (reading.includes('.')) this.addSpan(`r:${roundedReading(reading)}`, from, to);
    }
  }

  /** A key's spans in page order; of two spans starting at one word the longer is kept (`1,299.00` over `1,299`). */
  private addSpan(key: string, from: number, to: number): void {
    let list = this.spans.get(key);
    if (!list) this.spans.set(key, (list = []));
    if (list.length >= 2 && list[list.length - 2] === from) list[list.length - 1] = Math.max(list[list.length - 1], to);
    else list.push(from, to);
  }
}

const NONE: readonly number[] = Object.freeze([]);
