import { prependChild, removeElement } from 'domutils';
import { findFirst, isElement, type Document, type Element } from '../dom';

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
