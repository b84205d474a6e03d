import { prependChild, removeElement } from 'domutils';
import { findFirst, isElement, walk, type Document, type Element } from '../dom';

/**
 * Documents pasted inside the page, read as a browser's parser reads them (it ignores a second `<html>`, `<head>`
 * and `<body>`): first a document pasted into the head gives its body's content to the start of the page's body
 * (adoptNestedDocument), then any other nested document element is replaced by its children where it stands
 * (unwrapNestedDocuments: one pasted inside an article).
 */
export function readNestedDocuments(document: Document): void {
  adoptNestedDocument(document);
  unwrapNestedDocuments(document);
}

/**
 * A whole document pasted into the page's `<head>` (a template's snippet with its own `<!DOCTYPE html><html>
 * <head>…</head><body>…`): a browser ignores the second `<html>`, `<head>` and `<body>` tags and keeps one body, the
 * page's, while the parser here nests the pasted `<html>` in the head, where its `<body>` is the first one a search
 * finds, and the page's real body comes after it. The pasted document's body content goes to the start of the
 * page's body (where a browser puts it) and the pasted `<html>` is dropped.
 */
export function adoptNestedDocument(document: Document): void {
  const html = document.children.find((c): c is Element => isElement(c) && c.name === 'html');
  const head = html?.children.find((c): c is Element => isElement(c) && c.name === 'head');
  const body = html?.children.find((c): c is Element => isElement(c) && c.name === 'body');
  if (!head || !body) return;
  const pasted = findFirst(head, 'html');
  if (!pasted) return;
  const pastedBody = findFirst(pasted, 'body');
  for (const node of [...(pastedBody?.children ?? [])].reverse()) {
    removeElement(node);
    prependChild(body, node);
  }
  removeElement(pasted);
}

/** The tags that open a document; a browser's parser keeps only the first of each. */
const DOCUMENT_TAGS = new Set(['html', 'head', 'body']);

/**
 * A whole document pasted inside another (a site builder's "custom code" box holding `<!DOCTYPE html><html><head>
 * ...<body>`, in the page's head or in an article): a browser's parser ignores the second `<html>`, `<head>` and
 * `<body>` and keeps what they hold where it stands. The parser here nests them instead, and the first `<body>` it
 * finds may be the pasted one, holding a script, in the head. Each nested document element is replaced by its
 * children, so that the page has one body, the one that holds its content.
 */
export function unwrapNestedDocuments(document: Document): void {
  const nested: Element[] = [];
  // The document's own: an element of the document's top level, and the head and body of its <html>.
  const isOwn = (el: Element) =>
    el.parent === document || (el.name !== 'html' && isElement(el.parent!) && el.parent.name === 'html' && el.parent.parent === document);
  walk(document, (el) => {
    if (DOCUMENT_TAGS.has(el.name) && !isOwn(el)) nested.push(el);
  });
  // Innermost first (the walk is in document order), so that each unwraps in its parent as it stands.
  for (const el of nested.reverse()) unwrap(el);
}

function unwrap(el: Element): void {
  const parent = el.parent;
  if (!parent) return;
  const at = parent.children.indexOf(el);
  for (const child of el.children) child.parent = parent;
  parent.children.splice(at, 1, ...el.children);
  // Siblings' links follow the new order.
  parent.children.forEach((child, i) => {
    child.prev = parent.children[i - 1] ?? null;
    child.next = parent.children[i + 1] ?? null;
  });
}
