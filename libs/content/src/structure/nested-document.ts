import { isElement, walk, type Document, type Element } from '../dom';

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
