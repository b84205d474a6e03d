import { compile, is, selectAll } from 'css-select';
import { collapseWhitespace, isElement, parseHtml, textData, visibleText, type AnyNode, type Document, type Element } from '@app/content';

/** A parsed page: the document plus its URL (for resolving relative links). */
export interface LearnedPage {
  url: string;
  doc: Document;
}

export function parsePage(url: string, html: string): LearnedPage {
  return { url, doc: parseHtml(html) };
}

export function parentElement(el: Element): Element | undefined {
  return el.parent && isElement(el.parent) ? el.parent : undefined;
}

/**
 * The element's text before its first child element (`By:` in `<div>By: <a>…</a>, <a>…</a></div>`): what tells
 * an author line from an `Edited By:` line when both have the same markup.
 */
export function leadingText(el: Element): string {
  let out = '';
  for (const child of el.children) {
    if (isElement(child)) break;
    out += textData(child);
  }
  return collapseWhitespace(out);
}

/**
 * The text that follows a label child (`<b>ISBN-13:</b> 978…<br>`, `<strong>Publisher</strong>: X`)
 * up to the next `<br>` or the next element of the label's tag; leading `:`/dashes removed.
 * Undefined when no child element's text is exactly `label`.
 */
export function textAfterLabel(el: Element, label: string): string | undefined {
  const children = el.children;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (!isElement(child) || visibleText(child) !== label) continue;
    let out = '';
    for (let j = i + 1; j < children.length; j++) {
      const next = children[j];
      if (isElement(next) && (next.name === 'br' || next.name === child.name)) break;
      out += ` ${isElement(next) ? visibleText(next) : textData(next)}`;
    }
    return trimPunctuation(collapseWhitespace(out));
  }
  return undefined;
}

/** Leading/trailing separators a label leaves behind (`: `, ` - `, `|`). */
export function trimPunctuation(text: string): string {
  return text.replace(/^[\s:|\-–—,;·•]+/, '').replace(/[\s|\-–—,;·•]+$/, '');
}

const compiled = new Map<string, ReturnType<typeof compile>>();

function compiledQuery(selector: string): ReturnType<typeof compile> {
  let query = compiled.get(selector);
  if (!query) {
    query = compile(selector);
    if (compiled.size > 2000) compiled.clear();
    compiled.set(selector, query);
  }
  return query;
}

/** Elements matching a CSS selector in document order; compiled selectors are cached (programs reuse a few). */
export function select(selector: string, doc: Document): Element[] {
  return selectAll<AnyNode, Element>(compiledQuery(selector), doc);
}

/**
 * The element itself when it matches, then its descendants that match, in document order: what a rule reads inside
 * one item of a list. The selector is matched as on the whole page (its ancestors may be outside the item).
 */
export function selectWithin(selector: string, el: Element): Element[] {
  const query = compiledQuery(selector);
  const inside = selectAll<AnyNode, Element>(query, el);
  return is<AnyNode, Element>(el, query) ? [el, ...inside] : inside;
}

/** Whether css-select can run the selector (programs from the API are checked before use). */
export function isRunnableSelector(selector: string): boolean {
  try {
    compile(selector);
    return true;
  } catch {
    return false;
  }
}
