import type { ChromeMap } from './chrome';
import { childElements, isElement, isInvisible, ownText, visibleText, walk, type Element } from '@app/content';
import { type PageDom } from './dom';
import { toSnake } from './naming';
import type { DetailField, FieldKind } from './types';

const MAX_FIELDS = 15;
const MAX_LABEL_CHARS = 30;
const LABEL_TAGS = new Set(['strong', 'b', 'label', 'span', 'em', 'th', 'dt', 'h4', 'h5', 'h6']);
/** "ISBN-13: 9780316125581" in a list item or paragraph. */
const INLINE_PAIR = /^([A-Za-z][\w .\-/()#&]{0,28}?)\s*:\s*(\S.{0,200})$/;

/**
 * `label: value` pairs of a detail page (dt/dd, th/td rows, "<strong>Born:</strong> …",
 * "ISBN: …" list items) plus the main heading as `title`; site chrome is skipped.
 */
export function extractDetailFields(dom: PageDom, chrome: ChromeMap): DetailField[] {
  const fields: DetailField[] = [];
  const names = new Set<string>();
  const add = (label: string, value: string): void => {
    const clean = label.replace(/[:\s]+$/, '').trim();
    if (!/^[A-Za-z]/.test(clean) || clean.length > MAX_LABEL_CHARS || fields.length >= MAX_FIELDS) return;
    const name = toSnake(clean);
    if (!name || names.has(name)) return;
    names.add(name);
    fields.push({ name, kind: kindOf(value), label: clean, sample: value.slice(0, 120) });
  };
  const heading = mainHeading(dom, chrome);
  if (heading) {
    names.add('title');
    fields.push({ name: 'title', kind: 'string', label: 'heading', sample: heading.slice(0, 120) });
  }
  walk(dom.doc, (el) => {
    if (isInvisible(el) || chrome.inChrome(el) || fields.length >= MAX_FIELDS) return false;
    if (el.name === 'dt') {
      const dd = nextElement(el);
      if (dd?.name === 'dd') add(visibleText(el, 60), visibleText(dd, 200));
      return false;
    }
    if (el.name === 'tr') {
      const cells = childElements(el).filter((c) => c.name === 'td' || c.name === 'th');
      if (cells.length === 2) {
        const label = visibleText(cells[0], 60);
        if (cells[0].name === 'th' || label.endsWith(':')) add(label, visibleText(cells[1], 200));
      }
      return false;
    }
    if (LABEL_TAGS.has(el.name)) {
      const label = visibleText(el, 60);
      if (label.endsWith(':') && label.length <= MAX_LABEL_CHARS + 1) {
        const parent = el.parent && isElement(el.parent) ? el.parent : undefined;
        let value = parent ? visibleText(parent, 260).slice(label.length).trim() : '';
        if (!value && parent) {
          const next = nextElement(parent);
          value = next ? visibleText(next, 200) : '';
        }
        if (value) add(label, value);
        return false;
      }
    }
    if (el.name === 'li' || el.name === 'p') {
      const own = ownText(el);
      const text = visibleText(el, 260);
      const m = INLINE_PAIR.exec(text);
      if (m && text.length <= 230 && (own.includes(':') || childElements(el).length === 0)) add(m[1], m[2]);
    }
    return true;
  });
  return fields;
}

function mainHeading(dom: PageDom, chrome: ChromeMap): string | undefined {
  let h1: string | undefined;
  let other: string | undefined;
  walk(dom.doc, (el) => {
    if (h1 || isInvisible(el) || chrome.inChrome(el)) return false;
    if (el.name === 'h1') h1 = visibleText(el, 200) || undefined;
    else if (!other && /^h[23]$/.test(el.name)) other = visibleText(el, 200) || undefined;
    return !h1;
  });
  return h1 ?? other;
}

function nextElement(el: Element): Element | undefined {
  let n = el.next;
  while (n && !isElement(n)) n = n.next;
  return n ?? undefined;
}

function kindOf(value: string): FieldKind {
  const v = value.trim();
  if (/^https?:\/\/\S+$/.test(v)) return 'url';
  if (/^[-+]?\d[\d,.]*$/.test(v) && !/^\d{10,13}$/.test(v)) return 'number';
  if (/^[$€£¥]\s?\d[\d,.]*$/.test(v)) return 'number';
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'date';
  return 'string';
}
