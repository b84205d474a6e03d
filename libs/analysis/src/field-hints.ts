import { childElements, isInvisible, ownText, visibleText, type Element } from '@app/content';
import { classList, type PageDom } from './dom';
import { isGenericClass, isSelectableClass, meaningfulClassName, pathSectionName, pluralize, singularize, toSnake } from './naming';
import { absoluteUrl } from './page-links';
import type { FieldHint, FieldKind } from './types';

const HEADING = /^h[1-6]$/;
const MAX_ELEMENTS_PER_MEMBER = 400;
const MAX_FIELDS = 12;
const MIN_PRESENCE = 0.3;
// Link texts that name an action, not a value: such links contribute only their URL.
const GENERIC_LINK_TEXT =
  /^\(?(read more|more|details|view|view details|see more|continue reading|about|link|here|click here|learn more|›|»|→)\)?$/i;
const NUMBER = /^[-+]?\d[\d,.\s]*%?$/;
const PRICE = /^(?:[$€£¥₹]|usd|eur|gbp)\s?\d[\d,.]*|\d[\d,.]*\s?(?:[$€£¥₹]|usd|eur|gbp|kr|zł)$/i;
const DATE =
  /^(\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}|\d{1,2} (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{4})$/i;

interface Observation {
  order: number;
  tag: string;
  base: string;
  members: number;
  occurrences: number;
  texts: string[];
  urls: string[];
}

/** Fields seen across the members of a repeated element: keyed descendants (class/itemprop), links, images, times, headings. */
export function collectFieldHints(members: Element[], dom: PageDom, base: string | undefined): FieldHint[] {
  const seen = new Map<string, Observation>();
  let order = 0;
  for (const member of members) {
    const inMember = new Map<string, number>();
    visitMember(member, dom, (el, selector, nameBase) => {
      let obs = seen.get(selector);
      if (!obs) {
        obs = { order: order++, tag: el.name, base: nameBase, members: 0, occurrences: 0, texts: [], urls: [] };
        seen.set(selector, obs);
      }
      inMember.set(selector, (inMember.get(selector) ?? 0) + 1);
      obs.occurrences++;
      if (obs.texts.length < 50) obs.texts.push(el.name === 'img' ? (el.attribs.alt ?? '') : visibleText(el, 300));
      const raw = el.name === 'img' ? (el.attribs.src ?? el.attribs['data-src'] ?? '') : (el.attribs.href ?? '');
      const url = raw ? absoluteUrl(raw, base) : undefined;
      if (url && obs.urls.length < 50) obs.urls.push(url);
      if (el.name === 'time' && el.attribs.datetime && obs.texts.length < 50) obs.texts.push(el.attribs.datetime);
    });
    for (const selector of inMember.keys()) seen.get(selector)!.members++;
  }
  const hints: FieldHint[] = [];
  const used = new Set<string>();
  const entries = [...seen.entries()].sort((a, b) => a[1].order - b[1].order);
  for (const [selector, obs] of entries) {
    const presence = obs.members / members.length;
    if (presence < MIN_PRESENCE) continue;
    for (const hint of hintsFor(selector, obs, presence, members.length)) {
      let name = hint.name;
      for (let i = 2; used.has(name); i++) name = `${hint.name}_${i}`;
      used.add(name);
      hints.push({ ...hint, name });
    }
    if (hints.length >= MAX_FIELDS) break;
  }
  return hints.slice(0, MAX_FIELDS);
}

function hintsFor(selector: string, obs: Observation, presence: number, memberCount: number): FieldHint[] {
  const texts = obs.texts.filter((t) => t.length > 0);
  const distinctTexts = new Set(texts).size;
  const distinctUrls = new Set(obs.urls).size;
  const sampleText = texts[0] ?? '';
  const sampleUrl = obs.urls[0] ?? '';
  const common = { selector, presence: round2(presence) };
  const constantText = texts.length >= 3 && distinctTexts === 1 && memberCount >= 3;
  if (obs.tag === 'img') {
    return sampleUrl ? [{ ...common, name: obs.base || 'image', kind: 'image', sample: sampleUrl }] : [];
  }
  if (obs.occurrences / Math.max(1, obs.members) >= 1.5 && texts.length > 0) {
    const name = pluralize(singularize(obs.base || 'item'));
    return [{ ...common, name, kind: 'list', sample: texts.slice(0, 3).join(', ') }];
  }
  if (obs.tag === 'a') {
    const linkBase = obs.base || pathSectionName(sampleUrl) || 'link';
    const generic = constantText || texts.length === 0 || GENERIC_LINK_TEXT.test(sampleText);
    const out: FieldHint[] = [];
    if (!generic) out.push({ ...common, name: obs.base || 'title', kind: kindOfText(texts), sample: sampleText });
    if (sampleUrl && (distinctUrls >= 2 || memberCount < 2)) {
      out.push({
        ...common,
        name: generic ? `${linkBase}_url` : `${obs.base || 'title'}_url`.replace(/^title_url$/, 'url'),
        kind: 'url',
        sample: sampleUrl,
      });
    }
    return out;
  }
  // Constant text in every member is a label or a button ("Add to cart"), not data.
  if (texts.length === 0 || constantText) return [];
  const kind: FieldKind = obs.tag === 'time' ? 'date' : kindOfText(texts);
  const name = obs.base || (kind === 'number' && texts.some((t) => PRICE.test(t)) ? 'price' : kind === 'date' ? 'date' : 'text');
  return [{ ...common, name, kind, sample: sampleText }];
}

function kindOfText(texts: string[]): FieldKind {
  if (texts.length === 0) return 'string';
  if (texts.every((t) => NUMBER.test(t) || PRICE.test(t))) return 'number';
  if (texts.every((t) => DATE.test(t))) return 'date';
  return 'string';
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Stable key token of an element inside a member: `[itemprop=x]`, or tag + non-generic classes. */
function keyToken(el: Element): { token: string; name: string } | undefined {
  const prop = el.attribs.itemprop;
  if (prop && /^[\w-]+$/.test(prop)) return { token: `${el.name}[itemprop="${prop}"]`, name: toSnake(prop) };
  const classes = classList(el).filter((c) => isSelectableClass(c) && !isGenericClass(c));
  if (classes.length === 0) return undefined;
  return { token: `${el.name}.${classes.join('.')}`, name: meaningfulClassName(el) };
}

function isLabel(text: string): boolean {
  return text.length <= 30 && /:$/.test(text);
}

/**
 * Calls `found` for every field-like descendant of a member with its member-relative selector and a
 * name base. Keyed elements whose own text is only a label ("Tags:") are containers, not fields;
 * unkeyed links/images/headings borrow the name of their nearest keyed ancestor when that ancestor
 * is just a wrapper (`h3.title > a` → "title").
 */
function visitMember(member: Element, dom: PageDom, found: (el: Element, selector: string, nameBase: string) => void): void {
  let budget = MAX_ELEMENTS_PER_MEMBER;
  const stack: Array<{ el: Element; ctxToken: string; ctxName: string; ctxIsField: boolean }> = childElements(member)
    .reverse()
    .map((el) => ({ el, ctxToken: '', ctxName: '', ctxIsField: false }));
  while (stack.length > 0 && budget-- > 0) {
    const { el, ctxToken, ctxName, ctxIsField } = stack.pop()!;
    if (isInvisible(el) || el.name === 'br' || el.name === 'input' || el.name === 'button' || el.name === 'select') continue;
    const key = keyToken(el);
    const textLen = dom.textLen.get(el) ?? 0;
    const special = el.name === 'a' || el.name === 'img' || el.name === 'time' || HEADING.test(el.name);
    let isField = false;
    let token = ctxToken;
    let name = ctxName;
    if (key) {
      // Keep tokens short: the key itself usually identifies the field inside a member.
      token = key.token;
      name = key.name;
      const own = ownText(el);
      const leaf = !hasFieldDescendant(el);
      isField = special || (textLen > 0 && ((own.length > 0 && !isLabel(own)) || leaf));
      if (isField) found(el, token, name);
    } else if (special) {
      const selector = ctxToken ? `${ctxToken} ${el.name}` : el.name;
      const borrowed = ctxToken && !ctxIsField ? ctxName : '';
      const base = borrowed || (HEADING.test(el.name) ? 'title' : el.name === 'time' ? 'date' : el.name === 'img' ? 'image' : '');
      found(el, selector, base);
      isField = true;
      token = selector;
    }
    for (let i = el.children.length - 1; i >= 0; i--) {
      const child = el.children[i];
      if ((child.type as string) === 'tag')
        stack.push({ el: child as Element, ctxToken: token, ctxName: name, ctxIsField: isField || ctxIsField });
    }
  }
}

function hasFieldDescendant(el: Element): boolean {
  let budget = 60;
  const stack = childElements(el);
  while (stack.length > 0 && budget-- > 0) {
    const d = stack.pop()!;
    if (d.name === 'a' || d.name === 'img' || d.name === 'time' || HEADING.test(d.name) || keyToken(d)) return true;
    stack.push(...childElements(d));
  }
  return false;
}
