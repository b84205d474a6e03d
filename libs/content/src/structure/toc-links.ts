import { compareDocumentPosition } from 'domutils';
import { isElement, textData, typeOf, walk, type AnyNode, type Element } from '../dom';
import { classWeight } from '../readability/signals';
import { normalizedLength } from '../readability/text-measure';
import { isRendered } from './main-heading';
import type { TextCount } from './text-census';

/** A table of contents holds at least this many links... */
const TOC_MIN_LINKS = 10;
/** ...and this share of the page's links... */
const TOC_MIN_PAGE_SHARE = 0.5;
/** ...and is mostly link text. */
const TOC_MIN_LINK_DENSITY = 0.7;
/** Of its list items (`li`, `dt`, a table's rows), this share open with a link (a product grid's open with an image or a badge)... */
const TOC_MIN_LINKED_ITEMS = 0.9;
/** ...and it follows the heading after at most this much text (characters: a chapter's introduction, not an article). */
const TOC_MAX_GAP = 2000;
/** How far above the main heading its section is looked for. */
const SECTION_MAX_LEVELS = 5;
/** domutils' DocumentPosition.PRECEDING (a const enum): the first node precedes the second (neither holds the other). */
const PRECEDING = 2;
const WEIGH_CLASSES = { stripUnlikely: false, weightClasses: true, cleanConditionally: false };
const LISTS = new Set(['ul', 'ol', 'dl']);
const NOT_CONTENT = new Set(['nav', 'aside', 'header', 'footer', 'form', 'dialog', 'template']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar']);

/**
 * The table of contents (or index) of the section the page's main heading titles: a block of links after the
 * heading, in the heading's own section (a common ancestor below the body, at most SECTION_MAX_LEVELS up), that
 * holds a list whose items open with links, is mostly link text, holds most of the page's links and follows the heading
 * after no more than an introduction, and neither it nor what holds it is named as furniture (`sidebar`, `widget`). A documentation chapter is its heading,
 * a paragraph and that list: the list is the chapter's content, not the link-dense furniture that link density
 * otherwise takes it for. A sidebar or a menu sits outside the heading's section (or in `nav`/`aside`) and is not one.
 */
export function tableOfContents(
  heading: Element | undefined,
  body: Element,
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
): Element | undefined {
  if (!heading) return undefined;
  // The page's links are counted (a walk of the body) only once a section holds TOC_MIN_LINKS links: most hold fewer.
  let minLinks: number | undefined;
  let branch: Element = heading;
  for (let level = 0; level < SECTION_MAX_LEVELS; level++) {
    const section = branch.parent;
    if (!section || !isElement(section) || section === body || section.name === 'html') return undefined;
    if (isChrome(section)) return undefined;
    // Enough links below the section at all, else neither it nor a section above it that holds it...
    const sectionLinks = counts.get(section)?.links ?? 0;
    if (sectionLinks >= TOC_MIN_LINKS) minLinks ??= Math.max(TOC_MIN_LINKS, TOC_MIN_PAGE_SHARE * hrefLinks(body, isSkipped));
    if (minLinks !== undefined && sectionLinks >= minLinks) {
      const siblings = section.children.filter(isElement);
      for (const sibling of siblings.slice(siblings.indexOf(branch) + 1)) {
        const found = tocBlock(sibling, counts, isSkipped, minLinks);
        if (found)
          return textBetween(heading, found, section, isSkipped) <= TOC_MAX_GAP && !namedFurniture(found, section) ? found : undefined;
      }
    }
    branch = section;
  }
  return undefined;
}

/** The links under `root` (a named anchor, `<a id>` without `href`, marks a place in the page and is not one). */
function hrefLinks(root: Element, isSkipped: (el: Element) => boolean): number {
  let links = 0;
  walk(root, (el) => {
    if (isSkipped(el)) return false;
    if (el.name === 'a' && el.attribs.href !== undefined) links++;
    return true;
  });
  return links;
}

/** The outermost element under `root` (itself included) that is a table of contents. */
function tocBlock(
  root: Element,
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
  minLinks: number,
): Element | undefined {
  let found: Element | undefined;
  const visit = (el: Element): boolean => {
    if (found || isSkipped(el) || isChrome(el)) return false;
    const count = counts.get(el);
    if (!count || count.links < minLinks) return false;
    if (count.link >= TOC_MIN_LINK_DENSITY * count.text && holdsList(el) && linkedItemShare(el) >= TOC_MIN_LINKED_ITEMS) {
      found = el;
      return false;
    }
    return true;
  };
  if (visit(root)) walk(root, visit);
  return found;
}

function holdsList(el: Element): boolean {
  if (LISTS.has(el.name)) return true;
  let list = false;
  walk(el, (child) => {
    if (list) return false;
    if (LISTS.has(child.name)) list = true;
    return !list;
  });
  return list;
}

function isChrome(el: Element): boolean {
  return NOT_CONTENT.has(el.name) || CHROME_ROLES.has(el.attribs.role ?? '');
}

/**
 * Renders `block` with `roots` minus `removed`: it and what it holds leave `removed`; when an ancestor is still
 * removed (or it lies outside every root), it becomes a root of its own, in document order.
 */
export function keepBlock(block: Element, roots: Element[], removed: Set<Element>, isSkipped: (el: Element) => boolean): void {
  for (const el of [...removed]) if (el === block || isUnder(el, block)) removed.delete(el);
  if (isRendered(block, roots, removed, isSkipped)) return;
  for (const root of [...roots]) if (isUnder(root, block)) roots.splice(roots.indexOf(root), 1);
  const at = roots.findIndex((root) => compareDocumentPosition(block, root) === PRECEDING);
  roots.splice(at === -1 ? roots.length : at, 0, block);
}

function isUnder(el: Element, ancestor: Element): boolean {
  for (let node = el.parent; node; node = node.parent) if (node === ancestor) return true;
  return false;
}

/** Whether `block` or an element between it and `section` is named as furniture the way readability reads names (a sidebar, a widget). */
function namedFurniture(block: Element, section: Element): boolean {
  for (let node: Element | null = block; node && node !== section; node = node.parent as Element | null) {
    if (classWeight(node, WEIGH_CLASSES) < 0) return true;
  }
  return false;
}

/** Share of the list items (`li`, `dt`, `tr`) under `el` whose first words are inside a link. */
function linkedItemShare(el: Element): number {
  let items = 0;
  let linked = 0;
  walk(el, (item) => {
    if (item.name !== 'li' && item.name !== 'dt' && item.name !== 'tr') return true;
    items++;
    if (opensWithLink(item)) linked++;
    return true;
  });
  return items === 0 ? 0 : linked / items;
}

function opensWithLink(item: Element): boolean {
  const stack: AnyNode[] = [item];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeOf(node) === 'text') {
      if (!/\S/.test(textData(node))) continue;
      for (let p = node.parent; p && p !== item; p = p.parent) if (isElement(p) && p.name === 'a') return true;
      return false;
    }
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return false;
}

/** Characters of text after `from` and before `to` in document order, under `within` (skipped elements left out). */
function textBetween(from: Element, to: Element, within: Element, isSkipped: (el: Element) => boolean): number {
  let length = 0;
  let started = false;
  const stack: AnyNode[] = [within];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === to) return length;
    if (node === from) {
      started = true;
      continue;
    }
    if (typeOf(node) === 'text') {
      if (started) length += normalizedLength(textData(node));
      continue;
    }
    if (isElement(node) && isSkipped(node)) continue;
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return length;
}
