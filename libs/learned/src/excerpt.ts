import { getOuterHTML } from 'domutils';
import { convertHtml, visibleText, type Element } from '@app/content';
import { parentElement, type LearnedPage } from './dom';
import { elementValues, matchedElements, type FieldRule } from './program';

/** Text kept around each value a rule found: the value with its label and its neighbours, as a reader sees the block. */
const MIN_BLOCK = 200;
const MAX_BLOCK = 1_200;
/** Beyond this the excerpt saves too little to be worth losing the rest of the page: the call sends the whole page. */
const MAX_EXCERPT = 4_000;
/** Items of a list rule whose blocks go into the excerpt (the block of the first ones shows the rest). */
const MAX_ITEMS = 10;

/** The elements whose text gave the rule's value on the page (the first one for `first`, every one for `all`). */
export function locate(rule: FieldRule, page: LearnedPage): Element[] {
  const out: Element[] = [];
  for (const el of matchedElements(rule, page)) {
    if (elementValues(el, rule, page.url).length === 0) continue;
    out.push(el);
    if (rule.pick === 'first' || out.length >= MAX_ITEMS) break;
  }
  return out;
}

/**
 * The page's text around the values the rules found (docs/learned-extraction.md "Partial calls"): for each value,
 * the smallest enclosing block with some context (at least `MIN_BLOCK` characters where the page has them, at most
 * `MAX_BLOCK`) as markdown, the way a full call shows the whole page; a value from a `<head>` element (a meta
 * tag) as a line `name: value`. Undefined when a rule found
 * nothing, for a list of objects, when a value's own element is too long to cut, or when the excerpt would be long: then the model gets the
 * whole page.
 */
export function excerptOf(rules: FieldRule[], page: LearnedPage): string | undefined {
  const blocks: Element[] = [];
  const lines: string[] = [];
  for (const rule of rules) {
    // A list of objects is checked whole: the model reads the page to give every item (docs/long-lists.md "Learned lists").
    if (rule.items) return undefined;
    const located = locate(rule, page);
    if (located.length === 0) return undefined;
    for (const el of located) {
      if (inHead(el)) {
        const name = el.attribs.name ?? el.attribs.property ?? el.attribs.itemprop ?? el.name;
        const value = rule.source.kind === 'attr' ? el.attribs[rule.source.name] : visibleText(el);
        lines.push(`${name}: ${value ?? ''}`);
        continue;
      }
      const block = blockOf(el);
      if (!block) return undefined;
      if (!blocks.includes(block)) blocks.push(block);
    }
  }
  const outer = blocks.filter((b) => !blocks.some((other) => other !== b && contains(other, b)));
  const text = [...new Set(lines), ...outer.map((b) => markdownOf(b, page.url))].join('\n…\n');
  return text.length <= MAX_EXCERPT ? text : undefined;
}

/** A block as the content converter renders a page for the model (headings, lists, links kept). */
function markdownOf(block: Element, url: string): string {
  return convertHtml({ html: `<body>${getOuterHTML(block)}</body>`, url, mode: 'full' }).markdown.trim();
}

function blockOf(el: Element): Element | undefined {
  if (visibleText(el).length > MAX_BLOCK) return undefined;
  let block = el;
  while (visibleText(block).length < MIN_BLOCK) {
    const parent = parentElement(block);
    if (!parent || parent.name === 'body' || parent.name === 'html' || visibleText(parent).length > MAX_BLOCK) break;
    block = parent;
  }
  return block;
}

function inHead(el: Element): boolean {
  for (let a: Element | undefined = el; a; a = parentElement(a)) if (a.name === 'head') return true;
  return false;
}

function contains(outer: Element, inner: Element): boolean {
  for (let a: Element | undefined = parentElement(inner); a; a = parentElement(a)) if (a === outer) return true;
  return false;
}
