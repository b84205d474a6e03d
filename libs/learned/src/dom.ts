import { compile, selectAll } from 'css-select';
import { parseDocument } from 'htmlparser2';
import type { AnyNode, Document, Element, Text } from 'domhandler';
import { walk } from '@app/analysis';

export type { AnyNode, Document, Element };

/** Subtrees whose text a reader never sees (and a selector program never reads text from). */
const INVISIBLE = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object']);
/** Elements that separate words when text is flattened. */
const BLOCKISH = new Set(['br', 'p', 'div', 'li', 'td', 'th', 'tr', 'dd', 'dt', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'section', 'article']);

/** A parsed page: the document plus its URL (for resolving relative links). */
export interface LearnedPage {
  url: string;
  doc: Document;
}

/** Parses forgivingly (htmlparser2 never throws on bad markup); a leading BOM is dropped. */
export function parsePage(url: string, html: string): LearnedPage {
  const source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  return { url, doc: parseDocument(source, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true }) };
}

export function isElement(node: AnyNode): node is Element {
  const type: string = node.type;
  return type === 'tag' || type === 'script' || type === 'style';
}

export function childElements(node: AnyNode): Element[] {
  const children = (node as { children?: AnyNode[] }).children;
  return children ? children.filter(isElement) : [];
}

export function parentElement(el: Element): Element | undefined {
  return el.parent && isElement(el.parent) ? el.parent : undefined;
}

/** Whitespace runs (including no-break spaces) collapsed to one space, trimmed. */
export function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Visible text of a subtree, whitespace collapsed (iterative: garbage markup can nest thousands deep). */
export function textOf(root: AnyNode): string {
  let out = '';
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const type: string = node.type;
    if (type === 'text') {
      out += (node as Text).data;
      continue;
    }
    if (isElement(node)) {
      if (node !== root && INVISIBLE.has(node.name)) continue;
      if (BLOCKISH.has(node.name)) out += ' ';
    }
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return collapse(out);
}

/** Text of the element's own text children only (a heading without its `<span class="subtitle">`). */
export function ownTextOf(el: Element): string {
  let out = '';
  for (const child of el.children) if ((child.type as string) === 'text') out += (child as Text).data;
  return collapse(out);
}

/**
 * The element's text before its first child element (`By:` in `<div>By: <a>…</a>, <a>…</a></div>`): what tells
 * an author line from an `Edited By:` line when both have the same markup.
 */
export function leadingText(el: Element): string {
  let out = '';
  for (const child of el.children) {
    if (isElement(child)) break;
    if ((child.type as string) === 'text') out += (child as Text).data;
  }
  return collapse(out);
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
    if (!isElement(child) || textOf(child) !== label) continue;
    let out = '';
    for (let j = i + 1; j < children.length; j++) {
      const next = children[j];
      if (isElement(next) && (next.name === 'br' || next.name === child.name)) break;
      out += ` ${isElement(next) ? textOf(next) : ((next as { data?: string }).data ?? '')}`;
    }
    return trimPunctuation(collapse(out));
  }
  return undefined;
}

/** Leading/trailing separators a label leaves behind (`: `, ` - `, `|`). */
export function trimPunctuation(text: string): string {
  return text.replace(/^[\s:|\-–—,;·•]+/, '').replace(/[\s|\-–—,;·•]+$/, '');
}

/** Depth-first pre-order visit of descendant elements (the analysis lib's walk); returning false skips the subtree. */
export { walk };

/** The body element, or the document when there is none. */
export function bodyOf(doc: Document): Element | Document {
  let body: Element | undefined;
  walk(doc, (el) => {
    if (body) return false;
    if (el.name === 'body') {
      body = el;
      return false;
    }
    return true;
  });
  return body ?? doc;
}

const compiled = new Map<string, ReturnType<typeof compile>>();

/** Elements matching a CSS selector in document order; compiled selectors are cached (programs reuse a few). */
export function select(selector: string, doc: Document): Element[] {
  let query = compiled.get(selector);
  if (!query) {
    query = compile(selector);
    if (compiled.size > 2000) compiled.clear();
    compiled.set(selector, query);
  }
  return selectAll<AnyNode, Element>(query, doc);
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
