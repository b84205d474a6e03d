import { escapeAttribute, escapeText } from 'entities';
import { isElement, textData, typeOf, type AnyNode, type Element } from './dom';
import type { UrlResolver } from './url-resolver';

const VOID = new Set(['br', 'hr', 'img', 'wbr', 'col']);
/** Attributes that carry meaning for a reader; styling, scripting and data-* go. */
const KEPT = new Set([
  'alt',
  'title',
  'colspan',
  'rowspan',
  'headers',
  'scope',
  'lang',
  'dir',
  'datetime',
  'cite',
  'start',
  'reversed',
  'type',
]);
const URL_ATTRIBUTES = new Set(['href', 'src']);
/** Wrappers that add nothing but nesting once their attributes are gone. */
const UNWRAPPED = new Set(['span', 'font', 'center']);

/**
 * The `html` format: the content the markdown is made of, as HTML — the same elements are left out
 * (invisible ones, site chrome or everything outside the main content), attributes reduced to those
 * a reader needs, link and image URLs absolute (unsafe schemes dropped), comments removed.
 */
export function cleanHtml(roots: readonly AnyNode[], resolver: UrlResolver, skip: (el: Element) => boolean): string {
  const out: string[] = [];
  const stack: Array<AnyNode | string> = [...roots].reverse();
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const type = typeOf(item);
    if (type === 'text') {
      out.push(escapeText(textData(item)));
      continue;
    }
    if (!isElement(item)) {
      if (type === 'root') pushChildren(stack, item);
      continue;
    }
    if (skip(item) || type !== 'tag') continue;
    const name = item.name;
    if (UNWRAPPED.has(name) || name === 'html' || name === 'body') {
      pushChildren(stack, item);
      continue;
    }
    out.push(`<${name}${attributes(item, resolver)}>`);
    if (VOID.has(name)) continue;
    stack.push(`</${name}>`);
    pushChildren(stack, item);
  }
  return out
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function pushChildren(stack: Array<AnyNode | string>, node: AnyNode): void {
  const children = (node as { children?: AnyNode[] }).children ?? [];
  for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
}

function attributes(el: Element, resolver: UrlResolver): string {
  let out = '';
  for (const [name, value] of Object.entries(el.attribs)) {
    if (URL_ATTRIBUTES.has(name)) {
      const url = resolver.resolve(value);
      if (url) out += ` ${name}="${escapeAttribute(url.href)}"`;
    } else if (KEPT.has(name)) {
      out += ` ${name}="${escapeAttribute(value)}"`;
    }
  }
  return out;
}
