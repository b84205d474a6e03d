import { mapChrome, type ChromeMap } from './chrome';
import { groupSelector } from './css-selector';
import { bodyOf, childElements, isElement, isInvisible, walk, type Element } from '@app/content';
import { ancestors, classList, parsePageDom, type PageDom } from './dom';
import { collectFieldHints } from './field-hints';
import { isGenericClass, isSelectableClass, itemTypeName, meaningfulClassName, pathSectionName } from './naming';
import { absoluteUrl, baseUrlOf } from './page-links';
import type { DetectedElement, ElementType, FieldHint } from './types';

/** Tags that can be a record; paragraphs, spans and cells are parts of records, not records. */
const MEMBER_TAGS = new Set(['li', 'tr', 'div', 'article', 'section', 'a', 'figure', 'form', 'blockquote', 'dl', 'tbody']);
const MIN_COUNT = 3;
const MIN_TEXTFUL_SHARE = 0.6;
/** Link-only members: ≥ 90 % of their text is anchor text and they are short. */
const LINK_ONLY_SHARE = 0.9;
const LINK_ONLY_MAX_CHARS = 40;
/** A link list counts as content (not navigation) when it holds this share of the page's text. */
const LINK_LIST_MAIN_SHARE = 0.25;
const RICHNESS_CAP = 400;
/** Nested group replaces its container group when it carries this share of the container's text. */
const WRAPPER_TEXT_SHARE = 0.7;
const MAX_ELEMENTS = 10;

interface Group {
  key: string;
  members: Element[];
  text: number;
  linkOnly: boolean;
  score: number;
}

/** Repeated structures of a page (list items, cards, table rows, content link lists), best first. */
export function detectRepeatedElements(html: string, url: string): DetectedElement[] {
  return detectRepeatedInDom(parsePageDom(html), url);
}

export function detectRepeatedInDom(dom: PageDom, url: string, chrome: ChromeMap = mapChrome(dom)): DetectedElement[] {
  if (dom.totalText === 0) return [];
  const base = baseUrlOf(dom, url);
  const groups = collectGroups(dom, chrome);
  const kept = resolveNesting(groups);
  return kept.slice(0, MAX_ELEMENTS).map((g) => describe(g, dom, base));
}

/** Element signature: tag + sorted classes; class-less elements add their child-tag shape (header rows vs data rows). */
function signature(el: Element): string {
  const classes = classList(el).filter((c) => isSelectableClass(c) && !/^(active|current|selected|first|last|odd|even)$/i.test(c));
  const itemtype = el.attribs.itemtype ? `[${el.attribs.itemtype}]` : '';
  if (classes.length > 0 || itemtype) return `${el.name}.${classes.join('.')}${itemtype}`;
  const shape = [...new Set(childElements(el).map((c) => c.name))].sort().join(',');
  return `${el.name}|${shape}`;
}

function containerKey(el: Element): string {
  const id = el.attribs.id ? `#${el.attribs.id}` : '';
  const classes = classList(el).join('.');
  const own = `${el.name}${id}.${classes}`;
  if (id || classes) return own;
  const gp = el.parent && isElement(el.parent) ? el.parent : undefined;
  return gp ? `${gp.name}#${gp.attribs.id ?? ''}.${classList(gp).join('.')} ${own}` : own;
}

function collectGroups(dom: PageDom, chrome: ChromeMap): Group[] {
  const byKey = new Map<string, Element[]>();
  const root = bodyOf(dom.doc);
  const visit = (parent: Element | typeof root): void => {
    const bySig = new Map<string, Element[]>();
    for (const child of childElements(parent)) {
      if (!MEMBER_TAGS.has(child.name) || isInvisible(child)) continue;
      const sig = signature(child);
      const list = bySig.get(sig);
      if (list) list.push(child);
      else bySig.set(sig, [child]);
    }
    const pKey = isElement(parent) ? containerKey(parent) : '#document';
    for (const [sig, members] of bySig) {
      if (members.length < 2) continue;
      const key = `${pKey} > ${sig}`;
      const list = byKey.get(key);
      if (list) list.push(...members);
      else byKey.set(key, members);
    }
  };
  if (isElement(root)) visit(root);
  walk(root, (el) => {
    if (isInvisible(el)) return false;
    visit(el);
    return true;
  });
  const groups: Group[] = [];
  for (const [key, members] of byKey) {
    if (members.length < MIN_COUNT) continue;
    const texts = members.map((m) => dom.textLen.get(m) ?? 0);
    const textful = texts.filter((t) => t > 0).length;
    if (textful / members.length < MIN_TEXTFUL_SHARE) continue;
    const text = texts.reduce((a, b) => a + b, 0);
    const avg = text / members.length;
    const linkOnly = avg <= LINK_ONLY_MAX_CHARS && members.every((m) => anchorText(m, dom) >= LINK_ONLY_SHARE * (dom.textLen.get(m) ?? 0));
    const inChrome = members.every((m) => chrome.inChrome(m));
    if (inChrome) continue; // site navigation, header and footer lists
    if (linkOnly) {
      const share = dom.totalText ? text / dom.totalText : 0;
      if (!(members.every((m) => chrome.inMain(m)) || share >= LINK_LIST_MAIN_SHARE)) continue;
    }
    groups.push({ key, members, text, linkOnly, score: members.length * Math.min(avg, RICHNESS_CAP) });
  }
  // Deterministic: score, then document order of the first member (keys are insertion-ordered).
  return groups.sort((a, b) => b.score - a.score);
}

function anchorText(el: Element, dom: PageDom): number {
  if (el.name === 'a') return dom.textLen.get(el) ?? 0;
  let sum = 0;
  walk(el, (d) => {
    if (d.name === 'a') {
      sum += dom.textLen.get(d) ?? 0;
      return false;
    }
    return true;
  });
  return sum;
}

/**
 * A group nested inside a kept group is usually a field of it (tags inside quotes), unless it
 * carries most of the container's text with several members per container (rows of products:
 * the products are the records). A group that wraps a kept group is a layout wrapper.
 */
function resolveNesting(groups: Group[]): Group[] {
  const kept: Array<{ g: Group; set: Set<Element>; ancestors: Set<Element> }> = [];
  for (const g of groups) {
    const memberSet = new Set(g.members);
    const ownAncestors = new Set<Element>();
    for (const m of g.members) for (const a of ancestors(m)) ownAncestors.add(a);
    let drop = false;
    for (let i = 0; i < kept.length && !drop; i++) {
      const k = kept[i];
      const nestedIn = [...k.set].some((m) => ownAncestors.has(m));
      const wraps = [...memberSet].some((m) => k.ancestors.has(m));
      if (nestedIn) {
        if (g.members.length >= 2 * k.g.members.length && g.text >= WRAPPER_TEXT_SHARE * k.g.text) kept.splice(i--, 1);
        else drop = true;
      } else if (wraps) {
        drop = true;
      }
    }
    if (!drop) kept.push({ g, set: memberSet, ancestors: ownAncestors });
  }
  return kept.map((k) => k.g).sort((a, b) => b.score - a.score);
}

function describe(g: Group, dom: PageDom, base: string | undefined): DetectedElement {
  const fields = g.linkOnly ? linkListFields(g.members, base) : collectFieldHints(g.members, dom, base);
  const type = elementType(g, fields);
  const name = elementName(g, type, base);
  return {
    name,
    type,
    description: describeFields(g.members.length, type, fields),
    count: g.members.length,
    selector: groupSelector(g.members, dom),
    fields,
    score: Math.round(g.score),
    textShare: dom.totalText ? Math.round((g.text / dom.totalText) * 1000) / 1000 : 0,
    avgTextChars: Math.round(g.text / g.members.length),
  };
}

function linkListFields(members: Element[], base: string | undefined): FieldHint[] {
  const a = members[0].name === 'a' ? members[0] : findLink(members[0]);
  const url = a ? absoluteUrl(a.attribs.href ?? '', base) : undefined;
  const selector = members[0].name === 'a' ? '' : 'a';
  return [
    { name: 'title', kind: 'string', selector, presence: 1, sample: '' },
    { name: 'url', kind: 'url', selector, presence: 1, sample: url ?? '' },
  ];
}

function findLink(el: Element): Element | undefined {
  let found: Element | undefined;
  walk(el, (d) => {
    if (found) return false;
    if (d.name === 'a' && d.attribs.href) found = d;
    return !found;
  });
  return found;
}

function elementType(g: Group, fields: FieldHint[]): ElementType {
  const first = g.members[0];
  if (first.name === 'tr' || first.name === 'tbody') return 'table_row';
  if (first.name === 'form') return 'form';
  if (g.linkOnly) return 'link_list';
  if (first.name === 'article' || /Article|BlogPosting|NewsArticle|Review/.test(first.attribs.itemtype ?? '')) return 'article';
  if (first.name === 'li' || first.name === 'dl') return 'list_item';
  return fields.length >= 2 || fields.some((f) => f.kind === 'image') ? 'card' : 'list_item';
}

function elementName(g: Group, type: ElementType, base: string | undefined): string {
  const first = g.members[0];
  const cls = meaningfulClassName(first);
  if (cls) return cls;
  const itemtype = itemTypeName(first);
  if (itemtype) return itemtype;
  if (type === 'link_list') {
    const sections = g.members.map((m) => {
      const a = m.name === 'a' ? m : findLink(m);
      const url = a ? absoluteUrl(a.attribs.href ?? '', base) : undefined;
      return url ? pathSectionName(url) : '';
    });
    const counts = new Map<string, number>();
    for (const s of sections) if (s) counts.set(s, (counts.get(s) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    return top && top[1] >= 0.6 * g.members.length ? `${top[0]}_link` : 'link';
  }
  if (type === 'table_row') return 'table_row';
  if (type === 'article') return 'article';
  if (type === 'form') return 'form';
  // Generic classes still beat nothing ("item" → item).
  const generic = classList(first).find((c) => isGenericClass(c) && /^[a-z]+$/.test(c) && c.length > 2);
  if (generic) return generic;
  return first.name === 'li' ? 'list_item' : `${first.name === 'div' ? 'block' : first.name}_item`;
}

function describeFields(count: number, type: ElementType, fields: FieldHint[]): string {
  const label = type.replace('_', ' ');
  const names = fields
    .slice(0, 8)
    .map((f) =>
      f.kind === 'url' && f.name.endsWith('_url') ? `${f.name.slice(0, -4).replace(/_/g, ' ')} link` : f.name.replace(/_/g, ' '),
    );
  return names.length ? `${count} × ${label}: ${names.join(', ')}` : `${count} × ${label}`;
}
