import { childElements, isElement, ownText, visibleText, walk, type Document, type Element } from '@app/content';
import { leadingText, parentElement, textAfterLabel } from './dom';
import { modelScalar, type FieldRule, type ValueSource, type ValueStep } from './program';
import { cssString, pathWithin, selectorsFor } from './selectors';
import { normText, valuesAgree, type LearnableField } from './values';
import type { LearningSample } from './learner';

/*
 * The candidate rules of learned extraction (docs/learned-extraction.md): for a value the model gave, the elements of a
 * page that show it and the rules (selector, source, string steps) that would read it there, scored so that rules
 * reading a value as it stands come first. The learner (learner.ts) checks them against every learning page.
 */

/** Separators tried when one element holds several values ("Barbour Publishing / 2010 / Paperback", "A; B; C"). */
const SEPARATORS = [' / ', ' | ', '; ', ', ', ' - ', ' · ', ' and ', ' & '];
/** Labels are short; prefixes and suffixes stripped from a value's element are too. */
const MAX_LABEL = 40;
const MAX_AFFIX = 40;
/** Cap on target elements per field and anchor page (a title can appear in a dozen places). */
const MAX_TARGETS = 40;
const LABEL_TAGS = new Set(['b', 'strong', 'span', 'label', 'em', 'i', 'dt', 'th', 'td', 'div', 'p', 'h4', 'h5', 'h6']);
export const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'head', 'title', 'html', 'body']);

/** A rule that would read a field's value, with its score (lower first). */
export interface Candidate {
  rule: FieldRule;
  score: number;
}

/** Rules (`first`) that read a property's value from an element of one item: its own selectors, and its place in the item. */
export function candidatesWithin(property: LearnableField, item: Element, value: unknown, url: string): Candidate[] {
  const target = modelScalar(property.kind, value, url);
  if (target === undefined) return [];
  const out: Candidate[] = [];
  const visit = (el: Element) => {
    for (const { source, raw, penalty } of sourcesOf(el)) {
      if (raw.length > 4 * String(target).length + 200) continue;
      const ways = property.kind === 'string' ? stepsFor(raw, String(target), property.kind) : parsedSteps(raw, property, target, url);
      for (const steps of ways) {
        const base = { field: property.name, pick: 'first' as const, source, steps, parse: property.kind };
        for (const { selector, rank } of selectorsForSource(el, source))
          pushLabelled(out, el, { ...base, selector }, rank + penalty + steps.length * 1.5);
        out.push({ rule: { ...base, selector: pathWithin(el, item) }, score: 5 + penalty + steps.length * 1.5 });
      }
    }
  };
  visit(item);
  walk(item, (el) => (el.name === 'script' || el.name === 'style' ? false : (visit(el), true)));
  return out;
}

/** Raw texts an element offers, with the source that reads each. */
function sourcesOf(el: Element): Array<{ source: ValueSource; raw: string; penalty: number }> {
  const out: Array<{ source: ValueSource; raw: string; penalty: number }> = [];
  if (!SKIP.has(el.name) || el.name === 'title') {
    const text = visibleText(el);
    out.push({ source: { kind: 'text' }, raw: text, penalty: 0 });
    const own = ownText(el);
    if (own !== '' && own !== text) out.push({ source: { kind: 'own-text' }, raw: own, penalty: 0.4 });
    for (const child of childElements(el)) {
      if (!LABEL_TAGS.has(child.name)) continue;
      const label = visibleText(child);
      if (label === '' || label.length > MAX_LABEL || !cssString(label)) continue;
      const after = textAfterLabel(el, label);
      if (after) out.push({ source: { kind: 'after-label', label }, raw: after, penalty: 0.1 });
    }
  }
  for (const name of ['content', 'href', 'src', 'title', 'alt', 'value', 'datetime', 'data-value']) {
    const value = el.attribs[name];
    if (value !== undefined && value.trim() !== '') out.push({ source: { kind: 'attr', name }, raw: value, penalty: 0.2 });
  }
  return out;
}

/** String steps that turn `raw` into exactly `target`, or undefined. Several ways may exist; the simplest first. */
function stepsFor(raw: string, target: string, kind: LearnableField['kind']): ValueStep[][] {
  const text = normText(raw);
  const out: ValueStep[][] = [];
  if (text === target) out.push([]);
  if (kind === 'string' && text !== target) {
    const at = text.indexOf(target);
    if (at >= 0 && text.indexOf(target, at + 1) < 0) {
      const prefix = text.slice(0, at);
      const suffix = text.slice(at + target.length);
      if (prefix.length <= MAX_AFFIX && suffix.length <= MAX_AFFIX) {
        const steps: ValueStep[] = [];
        if (prefix) steps.push({ op: 'strip-prefix', value: prefix });
        if (suffix) steps.push({ op: 'strip-suffix', value: suffix });
        out.push(steps);
      }
    }
  }
  for (const separator of SEPARATORS) {
    if (!text.includes(separator)) continue;
    const parts = text.split(separator).map(normText);
    parts.forEach((part, index) => {
      if (part === target) out.push([{ op: 'split', separator, index: index === parts.length - 1 && index > 0 ? -1 : index }]);
    });
  }
  return out;
}

export function candidatesFor(field: LearnableField, sample: LearningSample): Candidate[] {
  const value = sample.output[field.name];
  const url = sample.page.url;
  const out: Candidate[] = [];
  if (field.list) {
    const items = (value as unknown[]).map((v) => modelScalar(field.kind, v, url)).filter((v) => v !== undefined);
    listCandidates(field, sample.page.doc, url, items, out);
    return out;
  }
  const target = modelScalar(field.kind, value, url)!;
  let targets = 0;
  const visit = (el: Element) => {
    if (targets >= MAX_TARGETS) return false;
    let hit = false;
    for (const { source, raw, penalty } of sourcesOf(el)) {
      if (raw.length > 4 * String(target).length + 200) continue;
      for (const steps of field.kind === 'string' ? stepsFor(raw, String(target), field.kind) : parsedSteps(raw, field, target, url)) {
        hit = true;
        for (const { selector, rank } of selectorsForSource(el, source))
          pushLabelled(
            out,
            el,
            { field: field.name, selector, pick: 'first', source, steps, parse: field.kind },
            rank + penalty + steps.length * 1.5,
          );
      }
    }
    if (hit) targets++;
    return true;
  };
  walk(sample.page.doc, (el) => (el.name === 'script' || el.name === 'style' ? false : visit(el)));
  return out;
}

/** Numbers, dates and URLs: the raw text (or a part of it) must parse to the model's value. */
function parsedSteps(raw: string, field: LearnableField, target: string | number, url: string): ValueStep[][] {
  const dummy: LearnableField = { ...field, list: false };
  const out: ValueStep[][] = [];
  const tryParts = (steps: ValueStep[], text: string) => {
    if (valuesAgree(dummy, modelScalar(field.kind, text, url), target)) out.push(steps);
  };
  tryParts([], raw);
  if (out.length > 0) return out;
  const text = normText(raw);
  for (const separator of SEPARATORS) {
    if (!text.includes(separator)) continue;
    const parts = text.split(separator);
    parts.forEach((part, index) =>
      tryParts([{ op: 'split', separator, index: index === parts.length - 1 && index > 0 ? -1 : index }], part),
    );
  }
  return out;
}

/** For label sources the container is found by tag (and the label); otherwise by the element's own selectors. */
function selectorsForSource(el: Element, source: ValueSource): Array<{ selector: string; rank: number }> {
  if (source.kind === 'after-label') return [{ selector: el.name, rank: 2 }, ...selectorsFor(el).filter((c) => c.rank < 4)];
  const out = selectorsFor(el);
  // A value element right after a label element: `dt:contains("Publisher") + dd`, `th:contains("ISBN") + td`.
  const previous = previousElement(el);
  if (previous && !SKIP.has(previous.name)) {
    const label = visibleText(previous);
    const literal = label.length <= MAX_LABEL ? cssString(label) : undefined;
    if (literal) out.push({ selector: `${previous.name}:contains(${literal}) + ${el.name}`, rank: 2 });
  }
  return out;
}

function previousElement(el: Element): Element | undefined {
  let node = el.prev;
  while (node && !isElement(node)) node = node.prev;
  return node ?? undefined;
}

/** Rules that read a list of scalars nested in one item of a list of objects (`tags`), relative to the item as well. */
export function listCandidatesWithin(property: LearnableField, item: Element, values: unknown, url: string): Candidate[] {
  if (!Array.isArray(values)) return [];
  const items = values.map((v) => modelScalar(property.kind, v, url)).filter((v) => v !== undefined);
  const out: Candidate[] = [];
  if (items.length > 0) listCandidates(property, item, url, items, out, item);
  return out;
}

function listCandidates(
  field: LearnableField,
  root: Document | Element,
  url: string,
  items: Array<string | number>,
  out: Candidate[],
  item?: Element,
): void {
  const first = items[0];
  const wanted = items.map(String);
  let targets = 0;
  walk(root, (el) => {
    if (el.name === 'script' || el.name === 'style' || targets >= MAX_TARGETS) return false;
    for (const { source, raw, penalty } of sourcesOf(el)) {
      if (source.kind === 'after-label' && items.length > 1) continue;
      // One element per item: selectors that pick this element and its like.
      const itemSteps = field.kind === 'string' ? stepsFor(raw, String(first), field.kind) : parsedSteps(raw, field, first, url);
      for (const steps of itemSteps) {
        if (steps.some((s) => s.op === 'split')) continue;
        targets++;
        const within = item && el !== item ? [{ selector: pathWithin(el, item, true), rank: 5 }] : [];
        for (const { selector, rank } of [...selectorsFor(el, true), ...listSelectors(el), ...within])
          pushLabelled(
            out,
            el,
            { field: field.name, selector, pick: 'all', source, steps, parse: field.kind },
            rank + penalty + steps.length * 1.5,
          );
      }
      // One element holding every item: "A; B; C", "by A and B".
      if (items.length > 1 && raw.length <= wanted.join(', ').length + MAX_AFFIX * 2) {
        const text = normText(raw);
        for (const separator of SEPARATORS) {
          const at = text.indexOf(wanted[0]);
          if (at < 0) continue;
          const end = text.lastIndexOf(wanted[wanted.length - 1]) + wanted[wanted.length - 1].length;
          if (text.slice(at, end) !== wanted.join(separator)) continue;
          const steps: ValueStep[] = [];
          if (at > 0) steps.push({ op: 'strip-prefix', value: text.slice(0, at) });
          if (end < text.length) steps.push({ op: 'strip-suffix', value: text.slice(end) });
          steps.push({ op: 'split', separator });
          targets++;
          for (const { selector, rank } of selectorsFor(el)) {
            out.push({
              rule: { field: field.name, selector, pick: 'first', source, steps, parse: field.kind },
              score: rank + penalty + steps.length * 1.5,
            });
          }
        }
      }
    }
    return true;
  });
}

/** Labels a rule's parent may carry: short, and written into the markup rather than page data (no long digit runs). */
const MAX_PARENT_LABEL = 40;
/** A label narrows a rule that fits anyway: preferred over the same rule without it (an `Edited By:` line may come later). */
const LABEL_BONUS = 0.3;

/**
 * A candidate rule, and when the element's parent starts with a label (`By:` before the author links) the same
 * rule kept to parents with that label.
 */
function pushLabelled(out: Candidate[], el: Element, rule: FieldRule, score: number): void {
  out.push({ rule, score });
  const parent = parentElement(el);
  const label = parent ? leadingText(parent) : '';
  if (label === '' || label.length > MAX_PARENT_LABEL || /\d{3,}/.test(label)) return;
  out.push({ rule: { ...rule, parentLabel: label }, score: score - LABEL_BONUS });
}

/**
 * The item under its nearest distinctive ancestors without positions (`h3.author > a`), and links
 * told apart by what their address says (`div.byline > a[href*="author="]`).
 */
function listSelectors(el: Element): Array<{ selector: string; rank: number }> {
  const parent = parentElement(el);
  if (!parent) return [];
  const parents = selectorsFor(parent).filter((c) => c.rank < 6);
  const out = parents.map((c) => ({ selector: `${c.selector} > ${el.name}`, rank: c.rank + 0.5 }));
  for (const token of hrefTokens(el.attribs.href)) {
    const literal = cssString(token);
    if (!literal) continue;
    out.push({ selector: `${el.name}[href*=${literal}]`, rank: 3.5 });
    for (const c of parents) out.push({ selector: `${c.selector} > ${el.name}[href*=${literal}]`, rank: c.rank + 0.7 });
  }
  return out;
}

/** Parts of a link address that name what it points to: query keys (`author=`) and the first path segment (`/author/`). */
export function hrefTokens(href: string | undefined): string[] {
  if (!href) return [];
  let url: URL;
  try {
    url = new URL(href, 'http://relative.invalid/');
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const key of new Set(url.searchParams.keys())) if (/^[A-Za-z_][\w-]{0,30}$/.test(key)) out.push(`${key}=`);
  const segment = url.pathname.split('/').find((s) => s !== '');
  if (segment && /^[A-Za-z][\w-]{0,30}$/.test(segment) && !/\d{3,}/.test(segment)) out.push(`/${segment}/`);
  return out;
}
