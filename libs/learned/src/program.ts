import { createHash } from 'node:crypto';
import { ownText, visibleText, type Element } from '@app/content';
import { isRunnableSelector, leadingText, parentElement, select, selectWithin, textAfterLabel, type LearnedPage } from './dom';
import { normText, parseAs, type LearnableField, type ValueKind } from './values';

/** Where a matched element's raw text comes from. */
export type ValueSource =
  | { kind: 'text' }
  | { kind: 'own-text' }
  | { kind: 'attr'; name: string }
  /** The text after a child element whose text is exactly `label`, up to the next `<br>` or label. */
  | { kind: 'after-label'; label: string };

/** Declared string steps, applied in order to the source text. */
export type ValueStep =
  | { op: 'strip-prefix'; value: string }
  | { op: 'strip-suffix'; value: string }
  /** Scalars take part `index`; lists split the text into items. */
  | { op: 'split'; separator: string; index?: number };

/** How one schema field is extracted: elements (CSS), raw text from each, steps, then parsing to the field's type. */
export interface FieldRule {
  field: string;
  selector: string;
  /** `first`: the first matched element that yields a value; `all`: one item per matched element (lists). */
  pick: 'first' | 'all';
  /**
   * Only matched elements whose parent's text before its first child element is exactly this (`By:`): the authors
   * of `<div class="author">By: <a>…</a></div>`, not the editors of `<div class="author">Edited By: <a>…</a></div>`.
   */
  parentLabel?: string;
  source: ValueSource;
  steps: ValueStep[];
  parse: ValueKind;
  /**
   * A list of objects (docs/long-lists.md "Learned lists"): `selector` (with `pick: 'all'`) picks one element per
   * item, and each of these rules (`pick: 'first'`) reads a property inside it (the element itself included); a
   * property its rule does not find is null. The rule's own `source`, `steps` and `parse` are not used. A property
   * that is a list is read inside the item the same way, one level down: a list of scalars by a `pick: 'all'` rule
   * (or a `first` rule with a split), a list of objects by a rule with `items` of its own whose selector picks the
   * item's sub-items; one found nowhere in the item is [] (null when its schema allows null).
   */
  items?: FieldRule[];
}

export interface ExtractionProgram {
  /** `prg_` + a hash of the rules: the same program learned twice has the same id. */
  id: string;
  version: 1;
  rules: FieldRule[];
}

export function programId(rules: FieldRule[]): string {
  return `prg_${createHash('sha256').update(JSON.stringify(rules)).digest('hex').slice(0, 16)}`;
}

export function makeProgram(rules: FieldRule[]): ExtractionProgram {
  return { id: programId(rules), version: 1, rules };
}

/** Problems with a program given from outside (stored, or sent through the API); empty when it can run. */
export function checkProgram(program: ExtractionProgram): string[] {
  const problems: string[] = [];
  if (program.version !== 1) problems.push(`unknown program version ${String(program.version)}`);
  const withNested = (r: FieldRule): FieldRule[] => [r, ...(Array.isArray(r.items) ? r.items.flatMap(withNested) : [])];
  for (const rule of (program.rules ?? []).flatMap(withNested)) {
    if (!isRunnableSelector(rule.selector)) problems.push(`${rule.field}: selector "${rule.selector}" is not valid CSS`);
    if (rule.parentLabel !== undefined && (typeof rule.parentLabel !== 'string' || rule.parentLabel === '' || rule.parentLabel.length > 60))
      problems.push(`${rule.field}: parentLabel must be a text of 1 to 60 characters`);
  }
  if (programId(program.rules ?? []) !== program.id) problems.push('program id does not match its rules');
  return problems;
}

function rawValue(el: Element, source: ValueSource): string | undefined {
  switch (source.kind) {
    case 'text':
      return visibleText(el);
    case 'own-text':
      return ownText(el);
    case 'attr':
      return el.attribs[source.name];
    case 'after-label':
      return textAfterLabel(el, source.label);
  }
}

/** The string steps; a list split returns several parts. */
export function applySteps(raw: string, steps: ValueStep[]): string[] {
  let parts = [normText(raw)];
  for (const step of steps) {
    parts = parts.flatMap((part): string[] => {
      if (step.op === 'strip-prefix') return part.startsWith(step.value) ? [part.slice(step.value.length)] : [];
      if (step.op === 'strip-suffix') return part.endsWith(step.value) ? [part.slice(0, part.length - step.value.length)] : [];
      const pieces = part.split(step.separator).map(normText);
      if (step.index === undefined) return pieces;
      const piece = pieces.at(step.index);
      return piece === undefined ? [] : [piece];
    });
    parts = parts.map(normText).filter((part) => part !== '');
  }
  return parts;
}

/** Values one element yields under a rule (several only for list splits). */
export function elementValues(el: Element, rule: Omit<FieldRule, 'field' | 'selector' | 'pick'>, pageUrl: string): Array<string | number> {
  const raw = rawValue(el, rule.source);
  if (raw === undefined) return [];
  const out: Array<string | number> = [];
  for (const part of applySteps(raw, rule.steps)) {
    const value = parseAs(rule.parse, part, pageUrl);
    if (value !== undefined) out.push(value);
  }
  return out;
}

/** The elements a rule reads, in document order: its selector's matches, kept to its parent label when it has one. */
export function matchedElements(rule: Pick<FieldRule, 'selector' | 'parentLabel'>, page: LearnedPage): Element[] {
  const matched = select(rule.selector, page.doc);
  if (rule.parentLabel === undefined) return matched;
  return matched.filter((el) => {
    const parent = parentElement(el);
    return parent !== undefined && leadingText(parent) === rule.parentLabel;
  });
}

/** Runs one rule: a scalar (or null) for `first`, a list for `all`. */
export function runRule(rule: FieldRule, page: LearnedPage): string | number | null | Array<string | number> {
  const matched = matchedElements(rule, page);
  if (rule.pick === 'all') return matched.flatMap((el) => elementValues(el, rule, page.url));
  for (const el of matched) {
    const values = elementValues(el, rule, page.url);
    if (values.length > 0) return values[0];
  }
  return null;
}

/**
 * Runs a program on a page: every field of the plan gets a value (null or [] when its rule finds
 * nothing, so a missing required field shows up in schema validation). Lists from a `first` rule
 * with a split keep all parts.
 */
export function runProgram(program: ExtractionProgram, page: LearnedPage, fields: LearnableField[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const rule = program.rules.find((r) => r.field === field.name);
    if (!rule) {
      out[field.name] = field.list ? [] : null;
      continue;
    }
    out[field.name] = runFieldRule(rule, page, field);
  }
  return out;
}

export function runFieldRule(rule: FieldRule, page: LearnedPage, field: LearnableField): unknown {
  if (field.items || rule.items) return runItemsRule(rule, page, field.items ?? []);
  if (!field.list) return runRule(rule, page);
  if (rule.pick === 'all') return runRule(rule, page);
  for (const el of matchedElements(rule, page)) {
    const values = elementValues(el, rule, page.url);
    if (values.length > 0) return values;
  }
  return [];
}

/**
 * A list of objects: an object per element the rule's selector picks, in document order, each property read by its
 * item rule inside that element. A property not found is null, or left out when its schema does not allow null; a
 * list property not found is [] (null when its schema allows null).
 */
export function runItemsRule(rule: FieldRule, page: LearnedPage, fields: LearnableField[]): Array<Record<string, unknown>> {
  if (!rule.items) return [];
  return itemObjects(matchedElements(rule, page), rule.items, fields, page.url);
}

function itemObjects(
  elements: Element[],
  itemRules: FieldRule[],
  fields: LearnableField[],
  pageUrl: string,
): Array<Record<string, unknown>> {
  const rules = new Map(itemRules.map((r) => [r.field, r]));
  return elements.map((item) => {
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const itemRule = rules.get(field.name);
      if (field.list) {
        const values = itemRule ? listWithin(itemRule, item, field, pageUrl) : [];
        out[field.name] = values.length > 0 || !field.nullable ? values : null;
        continue;
      }
      const value = itemRule ? firstWithin(itemRule, item, pageUrl) : null;
      if (value !== null || field.nullable) out[field.name] = value;
    }
    return out;
  });
}

/** The elements inside an item (or it) a rule matches, kept to its parent label when it has one. */
function matchedWithin(rule: FieldRule, item: Element): Element[] {
  const matched = selectWithin(rule.selector, item);
  if (rule.parentLabel === undefined) return matched;
  return matched.filter((el) => {
    const parent = parentElement(el);
    return parent !== undefined && leadingText(parent) === rule.parentLabel;
  });
}

/** A list nested in one item: its sub-items' objects (never the item itself), or its scalars. */
function listWithin(rule: FieldRule, item: Element, field: LearnableField, pageUrl: string): unknown[] {
  if (rule.items)
    return itemObjects(
      matchedWithin(rule, item).filter((el) => el !== item),
      rule.items,
      field.items ?? [],
      pageUrl,
    );
  const matched = matchedWithin(rule, item);
  if (rule.pick === 'all') return matched.flatMap((el) => elementValues(el, rule, pageUrl));
  for (const el of matched) {
    const values = elementValues(el, rule, pageUrl);
    if (values.length > 0) return values;
  }
  return [];
}

/** A property of one item: the first element inside it (or it) that yields a value under the rule. */
function firstWithin(rule: FieldRule, item: Element, pageUrl: string): string | number | null {
  for (const el of matchedWithin(rule, item)) {
    const values = elementValues(el, rule, pageUrl);
    if (values.length > 0) return values[0];
  }
  return null;
}

/** Shorthand used by the learner: a value as the model gave it, reduced to what a program can produce. */
export function modelScalar(kind: ValueKind, value: unknown, pageUrl: string): string | number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return kind === 'number' || kind === 'integer' ? value : undefined;
  if (typeof value !== 'string') return undefined;
  return kind === 'string' ? normText(value) || undefined : parseAs(kind, value, pageUrl);
}
