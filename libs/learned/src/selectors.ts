import { childElements, type Element } from '@app/content';
import { parentElement } from './dom';

/** A CSS selector for an element, with how much we trust it to survive across pages (lower is better). */
export interface SelectorCandidate {
  selector: string;
  rank: number;
}

const SAFE_TOKEN = /^[A-Za-z_][\w-]*$/;

/** Class names and ids that look written by a person, not generated per page or per build (no long digit runs, no hashes). */
export function isStableToken(token: string): boolean {
  return SAFE_TOKEN.test(token) && !/\d{3,}/.test(token) && token.length <= 40 && !/^(css|sc|jsx|svelte)-[a-z0-9]{5,}$/i.test(token);
}

function stableClasses(el: Element): string[] {
  const raw = el.attribs.class;
  if (!raw) return [];
  return [...new Set(raw.split(/\s+/).filter((c) => c.length > 0 && isStableToken(c)))].sort();
}

/** `tag#id`, `tag.a.b` or just `tag`: the element's own compound selector. */
export function compound(el: Element, withId = true): string {
  const id = el.attribs.id;
  if (withId && id && isStableToken(id)) return `${el.name}#${id}`;
  return `${el.name}${stableClasses(el)
    .map((c) => `.${c}`)
    .join('')}`;
}

function isDistinctive(el: Element): boolean {
  return (el.attribs.id !== undefined && isStableToken(el.attribs.id)) || stableClasses(el).length > 0;
}

/** A CSS string literal, or undefined when the text needs escaping we do not risk. */
export function cssString(text: string): string | undefined {
  if (/["\\\n\r]/.test(text) || text.length === 0 || text.length > 60) return undefined;
  return `"${text}"`;
}

function nthOfType(el: Element): string {
  const parent = el.parent as { children?: unknown[] } | null;
  const siblings = parent ? childElements(el.parent!).filter((s) => s.name === el.name) : [el];
  if (siblings.length <= 1) return el.name;
  return `${el.name}:nth-of-type(${siblings.indexOf(el) + 1})`;
}

/**
 * Selectors that pick `el`, best first: microdata and meta attributes, a stable id, the element's
 * classes, the element under up to four distinctive ancestors, the bare tag, and a positional path
 * from the nearest ancestor with an id (or from body). `forList` leaves the last step unnumbered so
 * the selector picks the element's siblings too.
 */
export function selectorsFor(el: Element, forList = false): SelectorCandidate[] {
  const out: SelectorCandidate[] = [];
  const add = (selector: string, rank: number) => {
    if (!out.some((c) => c.selector === selector)) out.push({ selector, rank });
  };
  const attr = (name: string) => {
    const value = el.attribs[name];
    const literal = value === undefined ? undefined : cssString(value);
    return literal ? `${el.name}[${name}=${literal}]` : undefined;
  };
  for (const name of ['itemprop', 'property', 'name']) {
    if (name === 'name' && el.name !== 'meta') continue;
    const selector = attr(name);
    if (selector) add(selector, 0);
  }
  const own = compound(el, !forList);
  if (own.includes('#')) add(own, 1);
  const plain = compound(el, false);
  if (plain !== el.name) add(plain, 3);
  let depth = 0;
  let direct = true;
  for (let a = parentElement(el); a && depth < 4; a = parentElement(a)) {
    if (a.name === 'body' || a.name === 'html') break;
    if (isDistinctive(a)) {
      depth++;
      const combinator = direct ? ' > ' : ' ';
      add(`${compound(a)}${combinator}${el.name}`, 3.2 + depth * 0.2);
      if (plain !== el.name) add(`${compound(a)}${combinator}${plain}`, 3.3 + depth * 0.2);
    }
    direct = false;
  }
  add(el.name, 4);
  add(positionalPath(el, forList), 6);
  return out;
}

/**
 * `li.card > p:nth-of-type(2)`: the element's place inside an item of a list (`item`, one of its ancestors or
 * itself), read inside each item (docs/long-lists.md "Learned lists"): exact within the item's template.
 */
export function pathWithin(el: Element, item: Element, forList = false): string {
  const steps: string[] = [];
  // `forList`: the last step unnumbered, so the path picks the element's siblings too (a list nested in the item).
  for (let a: Element | undefined = el; a && a !== item; a = parentElement(a)) steps.unshift(forList && a === el ? a.name : nthOfType(a));
  return [compound(item, false), ...steps].join(' > ');
}

/** `#main > div:nth-of-type(2) > h2` (or from `body`): exact, but breaks when the layout shifts. */
export function positionalPath(el: Element, forList = false): string {
  const steps: string[] = [forList ? el.name : nthOfType(el)];
  for (let a = parentElement(el); a; a = parentElement(a)) {
    if (a.name === 'body' || a.name === 'html') {
      steps.unshift(a.name);
      break;
    }
    if (a.attribs.id && isStableToken(a.attribs.id)) {
      steps.unshift(`${a.name}#${a.attribs.id}`);
      break;
    }
    steps.unshift(nthOfType(a));
  }
  return steps.join(' > ');
}
