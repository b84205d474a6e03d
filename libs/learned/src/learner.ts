import { childElements, visibleText, walk, type Element } from '@app/content';
import { parentElement, select, type LearnedPage } from './dom';
import {
  elementValues,
  makeProgram,
  matchedElements,
  modelScalar,
  runFieldRule,
  runItemsRule,
  type ExtractionProgram,
  type FieldRule,
} from './program';
import { selectorsFor } from './selectors';
import { hasValue, normText, valuesAgree, type LearnableField } from './values';
import { SKIP, candidatesFor, candidatesWithin, type Candidate } from './candidates';
import { modelItems, nestedCandidates } from './nested-lists';

export { hrefTokens } from './candidates';

/** One page the model has extracted: its DOM and the (schema-valid) output. */
export interface LearningSample {
  page: LearnedPage;
  output: Record<string, unknown>;
  /** The page's HTML, kept when the sample has to be stored (relearning in another process). */
  html?: string;
  /** The fields the model was asked for (a partial call); absent: every field. */
  fields?: string[];
}

/** Whether the sample holds the model's answer for the field. */
export function covers(sample: LearningSample, field: string): boolean {
  return sample.fields === undefined || sample.fields.includes(field);
}

export interface LearnFailure {
  field: string;
  reason: string;
}

export interface LearnResult {
  program?: ExtractionProgram;
  failures: LearnFailure[];
  /** Candidate rules evaluated (for the benchmark's overhead figures). */
  candidates: number;
}

/** Samples a rule must reproduce when it is allowed to miss one. */
const MIN_AGREEING = 3;

/** One field's rule learned from samples: `null` when the model left the field empty on every sample (the rule "always empty"). */
export interface RuleResult {
  rule?: FieldRule | null;
  failure?: string;
  /** Candidate rules evaluated. */
  candidates: number;
  /** Samples the rule does not reproduce (only with `outliers`). */
  missed?: number;
}

/**
 * Learns a rule for one field that reproduces the model's value on every sample page that the model answered for
 * the field, preferring rules that read a value as it stands (microdata, ids, classes, labels) over positional
 * ones and over rules that need string steps. A field the model never filled on any sample gets the rule `null`
 * (always empty): verification and spot checks are what catch it appearing later.
 *
 * `outliers` (0 or 1): when no rule reproduces every sample, the best rule that misses at most that many of them
 * (with at least three samples agreeing) is taken instead, so one page whose model answer no rule can give (a value
 * the page does not show as such) does not keep the field learning until that page leaves the samples. Verification
 * still has to pass on the pages that follow.
 */
export function learnRule(field: LearnableField, samples: LearningSample[], outliers = 0): RuleResult {
  if (field.items) return learnItemsRule(field, field.items, samples, outliers);
  const relevant = samples.filter((s) => covers(s, field.name));
  if (relevant.length === 0) return { failure: 'no learning pages', candidates: 0 };
  const anchors = relevant.filter((s) => hasModelValue(field, s));
  if (anchors.length === 0) return { rule: null, candidates: 0 };
  const candidates = new Map<string, Candidate>();
  for (const anchor of anchors.slice(0, 2))
    for (const c of candidatesFor(field, anchor)) {
      const key = JSON.stringify(c.rule);
      if (!candidates.has(key)) candidates.set(key, c);
    }
  const ordered = [...candidates.values()].sort((a, b) => a.score - b.score || a.rule.selector.length - b.rule.selector.length);
  const allowed = relevant.length - outliers >= MIN_AGREEING ? outliers : 0;
  let tried = 0;
  let nearMiss: { rule: FieldRule; missed: number } | undefined;
  for (const candidate of ordered) {
    tried++;
    let missed = 0;
    for (const s of relevant) {
      if (valuesAgree(field, runFieldRule(candidate.rule, s.page, field), s.output[field.name])) continue;
      if (++missed > allowed) break;
    }
    if (missed === 0) return { rule: candidate.rule, candidates: tried };
    if (missed <= allowed && !nearMiss) nearMiss = { rule: candidate.rule, missed };
  }
  if (nearMiss) return { rule: nearMiss.rule, candidates: tried, missed: nearMiss.missed };
  return {
    failure:
      candidates.size === 0
        ? 'the value was not found in the page'
        : `none of ${candidates.size} candidate rules reproduces every learning page`,
    candidates: tried,
  };
}

/** A rule per field (`learnRule`); a program only when every field has one. */
export function learnProgram(fields: LearnableField[], samples: LearningSample[]): LearnResult {
  const rules: FieldRule[] = [];
  const failures: LearnFailure[] = [];
  let tried = 0;
  if (samples.length === 0) return { failures: [{ field: '*', reason: 'no learning pages' }], candidates: 0 };
  for (const field of fields) {
    const result = learnRule(field, samples);
    tried += result.candidates;
    if (result.rule) rules.push(result.rule);
    else if (result.failure) failures.push({ field: field.name, reason: result.failure });
  }
  return failures.length > 0 ? { failures, candidates: tried } : { program: makeProgram(rules), failures, candidates: tried };
}

/** Ancestors of an item's values tried as the item's element, the nearest first. */
const MAX_ITEM_DEPTH = 6;
/** Items of the first learning page whose elements propose a property's rules inside the item. */
const PROPOSING_ITEMS = 3;

/**
 * A list of objects (docs/long-lists.md "Learned lists"): the repeated template of its items. First the item's
 * element: the properties learnable page-wide as a list of their values (a column, one element per item) locate the
 * first item's values, and the nearest ancestor of them whose selector picks one element per item of every learning
 * page, those columns read inside each agreeing with the model, is the item. Then each property is a rule read inside
 * every item (its column, or a rule proposed by the first items' elements: a class, a label, the place in the item),
 * checked on every item of every learning page, so each item keeps its own values (an item without a price gets
 * null, not its neighbour's). Hundreds of items cost no more rules than a few: they are checked, not proposed, there.
 * A property that is a list (`tags`, `variants`) gets a rule read inside each item too (nested-lists.ts), checked
 * item by item and element by element; none that fits: no rule for the list, which stays the model's.
 */
function learnItemsRule(field: LearnableField, properties: LearnableField[], samples: LearningSample[], outliers: number): RuleResult {
  const relevant = samples.filter((s) => covers(s, field.name));
  if (relevant.length === 0) return { failure: 'no learning pages', candidates: 0 };
  const anchors = relevant.filter((s) => modelItems(s, field).length > 0);
  if (anchors.length === 0) return { rule: null, candidates: 0 };
  const allowed = relevant.length - outliers >= MIN_AGREEING ? outliers : 0;
  let tried = 0;
  /** Whether a list-of-objects rule gives the model's list (over `props`) on the learning pages, within `allowed`. */
  const fits = (rule: FieldRule, props: LearnableField[]): boolean => {
    const view: LearnableField = { ...field, items: props };
    let missed = 0;
    for (const s of relevant) {
      const model = modelItems(s, field);
      if (valuesAgree(view, runItemsRule(rule, s.page, props), model.length > 0 ? model : s.output[field.name])) continue;
      if (++missed > allowed) return false;
    }
    return true;
  };
  const columns: FieldRule[] = [];
  for (const property of properties.filter((p) => !p.list)) {
    const column: LearnableField = { ...property, list: true };
    const columnSamples = relevant.map((s) => ({
      page: s.page,
      output: { [property.name]: modelItems(s, field).flatMap((item) => (hasValue(item[property.name]) ? [item[property.name]] : [])) },
    }));
    const result = learnRule(column, columnSamples, outliers);
    tried += result.candidates;
    if (result.rule?.pick === 'all') columns.push({ ...result.rule, pick: 'first' });
  }
  const anchor = anchors[0];
  const firstItem = modelItems(anchor, field)[0];
  // The first item's own values: a column's first match is the first item's only when the first item has that property.
  const located = columns
    .filter((c) => hasValue(firstItem[c.field]))
    .map((c) => ({ column: c, el: matchedElements(c, anchor.page).find((el) => elementValues(el, c, anchor.page.url).length > 0) }))
    .filter((l): l is { column: FieldRule; el: Element } => l.el !== undefined);
  // No column (a table's cells carry no class): the first elements showing the first item's values as they stand.
  const firstValues = located.length > 0 ? located.map((l) => l.el) : valueElements(properties, firstItem, anchor.page);
  if (firstValues.length === 0) return { failure: "the first item's values are not on the page", candidates: tried };
  const byColumn = located.map((l) => properties.find((p) => p.name === l.column.field)!);
  /** Without columns the item's element is judged by its count alone; the properties' rules are checked next. */
  const countFits = (selector: string): boolean => {
    let missed = 0;
    for (const s of relevant) {
      if (select(selector, s.page.doc).length === modelItems(s, field).length) continue;
      if (++missed > allowed) return false;
    }
    return true;
  };
  const item = (selector: string, rules: FieldRule[]): FieldRule => ({
    field: field.name,
    selector,
    pick: 'all',
    source: { kind: 'text' },
    steps: [],
    parse: 'string',
    items: rules,
  });
  let container: string | undefined;
  const seen = new Set<string>();
  let level = 0;
  for (let el = commonAncestor(firstValues); el && !SKIP.has(el.name) && level < MAX_ITEM_DEPTH && !container; el = parentElement(el)) {
    level++;
    const parent = parentElement(el);
    const selectors = [
      ...selectorsFor(el, true),
      ...(parent
        ? selectorsFor(parent)
            .filter((c) => c.rank < 6)
            .map((c) => ({ selector: `${c.selector} > ${el.name}`, rank: c.rank + 0.5 }))
        : []),
    ].sort((a, b) => a.rank - b.rank || a.selector.length - b.selector.length);
    for (const { selector } of selectors) {
      if (seen.has(selector)) continue;
      seen.add(selector);
      tried++;
      if (
        located.length > 0
          ? fits(
              item(
                selector,
                located.map((l) => l.column),
              ),
              byColumn,
            )
          : countFits(selector)
      ) {
        container = selector;
        break;
      }
    }
  }
  if (container === undefined)
    return {
      failure: `no element of the first item picks every item of the learning pages (${seen.size} selectors tried)`,
      candidates: tried,
    };
  const rules: FieldRule[] = [];
  for (const property of properties) {
    if (!relevant.some((s) => modelItems(s, field).some((i) => hasValue(i[property.name])))) continue;
    const column = columns.find((c) => c.field === property.name);
    const proposed = column ? [{ rule: column, score: -1 }] : [];
    if (property.list) {
      // A list inside each item (`tags`, `variants`): its rule is read inside every item, checked item by item.
      const nested = nestedCandidates(field, property, container, relevant, (f, s) => learnRule(f, s));
      tried += nested.tried;
      proposed.push(...nested.candidates);
    } else
      for (const [n, values] of modelItems(anchor, field).slice(0, PROPOSING_ITEMS).entries()) {
        const el = select(container, anchor.page.doc)[n];
        if (el && hasValue(values[property.name])) proposed.push(...candidatesWithin(property, el, values[property.name], anchor.page.url));
      }
    const unique = new Map<string, Candidate>();
    for (const c of proposed.sort((a, b) => a.score - b.score || a.rule.selector.length - b.rule.selector.length)) {
      const key = JSON.stringify(c.rule);
      if (!unique.has(key)) unique.set(key, c);
    }
    let found: FieldRule | undefined;
    for (const { rule } of unique.values()) {
      tried++;
      if (fits(item(container, [rule]), [property])) {
        found = rule;
        break;
      }
    }
    if (!found)
      return {
        failure: `${property.name} of its items: none of ${unique.size} rules inside the item reproduces every item`,
        candidates: tried,
      };
    rules.push(found);
  }
  const rule = item(container, rules);
  if (!fits(rule, properties))
    return { failure: 'the properties read inside each item do not reproduce the learning pages together', candidates: tried };
  return { rule, candidates: tried };
}

/** Per property the first item has, the first element (in document order) whose text is its value as it stands. */
function valueElements(properties: LearnableField[], values: Record<string, unknown>, page: LearnedPage): Element[] {
  const out: Element[] = [];
  for (const property of properties) {
    const target = modelScalar(property.kind, values[property.name], page.url);
    if (target === undefined) continue;
    let found: Element | undefined;
    walk(page.doc, (el) => {
      if (found || el.name === 'script' || el.name === 'style') return false;
      const text = visibleText(el);
      if (
        property.kind === 'string'
          ? normText(text) === target
          : valuesAgree({ ...property, list: false }, modelScalar(property.kind, text, page.url), target)
      ) {
        // The deepest such element: one of its children may show the value alone.
        const inner = childElements(el).find((c) => normText(visibleText(c)) === normText(text));
        if (!inner) found = el;
      }
      return true;
    });
    if (found) out.push(found);
  }
  return out;
}

/** The nearest element that holds all of them (itself one of them when it holds the others). */
function commonAncestor(elements: Element[]): Element | undefined {
  const chain = (el: Element): Element[] => {
    const out: Element[] = [];
    for (let a: Element | undefined = el; a; a = parentElement(a)) out.push(a);
    return out;
  };
  const [first, ...rest] = elements;
  const others = rest.map((el) => new Set(chain(el)));
  return chain(first).find((a) => others.every((set) => set.has(a)));
}

function hasModelValue(field: LearnableField, sample: LearningSample): boolean {
  const value = sample.output[field.name];
  if (field.list) return Array.isArray(value) && value.some((v) => modelScalar(field.kind, v, sample.page.url) !== undefined);
  return modelScalar(field.kind, value, sample.page.url) !== undefined;
}
