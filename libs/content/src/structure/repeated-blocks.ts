import { isElement, walk, type Element } from '../dom';
import type { TextCount } from './text-census';

/** Sibling elements of one kind under one parent: a thread's posts, a grid's items, a reference page's sections. */
export interface RepeatedBlocks {
  parent: Element;
  /** The members, in document order. */
  items: Element[];
  /** What the members share: tag and class names (digits left out). */
  signature: string;
  /** Text length of all the members together. */
  text: number;
}

export interface RepeatedBlocksOptions {
  /** Fewest members a group needs (default 3). */
  minItems?: number;
  /** Least text each member must hold to count (default 1: an empty spacer is not an item). */
  minItemText?: number;
}

/**
 * The groups of repeated blocks among `parent`'s children: children with the same signature (tag and class
 * names, digits left out: `post post-17` and `post post-18` are one kind), at least `minItems` of them holding
 * text. Structure every site shares whatever its theme: a thread is a run of posts, a listing a run of items,
 * a reference page a run of sections. `counts` are the page's text counts (text-census.ts); elements without
 * one (skipped) are not members. Largest group (by text) first.
 */
export function repeatedBlocks(
  parent: Element,
  counts: ReadonlyMap<Element, TextCount>,
  options: RepeatedBlocksOptions = {},
): RepeatedBlocks[] {
  const minItems = options.minItems ?? 3;
  const minItemText = options.minItemText ?? 1;
  const groups = new Map<string, RepeatedBlocks>();
  for (const child of parent.children) {
    if (!isElement(child)) continue;
    const count = counts.get(child);
    if (!count || count.text < minItemText) continue;
    const signature = signatureOf(child);
    let group = groups.get(signature);
    if (!group) groups.set(signature, (group = { parent, items: [], signature, text: 0 }));
    group.items.push(child);
    group.text += count.text;
  }
  return [...groups.values()].filter((g) => g.items.length >= minItems).sort((a, b) => b.text - a.text);
}

/** The group of repeated blocks `el` is a member of among its siblings, if any. */
export function groupOf(
  el: Element,
  counts: ReadonlyMap<Element, TextCount>,
  options: RepeatedBlocksOptions = {},
): RepeatedBlocks | undefined {
  const parent = el.parent;
  if (!parent || !isElement(parent)) return undefined;
  const signature = signatureOf(el);
  return repeatedBlocks(parent, counts, options).find((g) => g.signature === signature && g.items.includes(el));
}

/**
 * Every group of repeated blocks under `root` (its own children included), outermost first, each with at
 * least `minShare` of its parent's text (default 0.5: the run is what the parent is about, not a row of
 * icons beside it).
 */
export function findRepeatedBlocks(
  root: Element,
  counts: ReadonlyMap<Element, TextCount>,
  options: RepeatedBlocksOptions & { minShare?: number } = {},
): RepeatedBlocks[] {
  const minShare = options.minShare ?? 0.5;
  const found: RepeatedBlocks[] = [];
  const visit = (parent: Element) => {
    const total = counts.get(parent)?.text ?? 0;
    if (total === 0) return;
    for (const group of repeatedBlocks(parent, counts, options)) if (group.text >= total * minShare) found.push(group);
  };
  visit(root);
  walk(root, (el) => {
    if (!counts.has(el)) return false;
    visit(el);
    return true;
  });
  return found;
}

/** Tags that are items of a run by themselves, whatever their class names. */
const ITEM_TAGS = new Set(['article', 'section', 'li', 'tr', 'dt', 'dd', 'details', 'figure', 'blockquote']);
/** Class names (digits left out) that say where a block sits in the page's grid, not what it holds. */
const LAYOUT_CLASS =
  /^(?:row(?:-fluid)?|col(?:-[a-z]+)*-?|columns?|span-?|container(?:-fluid)?|clearfix|clear|wrap(?:per)?|inner|cell|grid|flex|d-flex|pull-(?:left|right)|float-(?:left|right))$/i;

/**
 * Whether a group's members are items of one kind (posts, cards, sections) rather than blocks that merely look
 * alike: an item tag, or a class name that is not about layout. Plain `<div>`s, or grid rows and columns, are how
 * a page is laid out, not a run of anything.
 */
export function namesAKind(group: Pick<RepeatedBlocks, 'signature'>): boolean {
  const [tag, ...classes] = group.signature.split('.');
  return ITEM_TAGS.has(tag) || classes.some((c) => c !== '' && !LAYOUT_CLASS.test(c));
}

/** Class names that say which state one member is in, not what kind it is. */
const STATE_CLASS =
  /^(?:active|current|selected|first|last|odd|even|open|closed|expanded|collapsed|new|sticky|featured|highlighted|visible|(?:is|has)-.*)$/i;

/**
 * Tag and class names with digits and state names left out, sorted (`li.card.card-3` and `li.card-7.card.active`
 * are one kind).
 */
export function signatureOf(el: Element): string {
  const classes = (el.attribs.class ?? '')
    .split(/\s+/)
    .filter((c) => !STATE_CLASS.test(c))
    .map((c) => c.replace(/\d+/g, ''))
    .filter((c) => c !== '' && c !== '-' && c !== '_');
  return `${el.name}.${[...new Set(classes)].sort().join('.')}`;
}
