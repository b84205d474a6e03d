import type { AnyNode, Comment, Document, Element } from 'domhandler';
import { prepend, removeElement } from 'domutils';
import { includesByTail, textData, typeOf, walk } from '../dom';

/**
 * Streamed server rendering (React's `renderToPipeableStream`, as Next.js and other frameworks ship it): a page
 * is sent as a shell whose slow parts are placeholders, and each part follows later in the same document inside
 * a hidden `<div hidden id="S:…">`, with a small script that moves it into place:
 * - `$RC("B:n","S:m")` fills a Suspense boundary: the loading fallback after `<template id="B:n">` (up to the
 *   boundary's closing `<!--/$-->` comment) is replaced by the segment's children;
 * - `$RS("S:m","P:n")` fills a placeholder: `<template id="P:n">` is replaced by the segment's children.
 * A browser shows the page after those scripts ran; a reader without scripts sees skeletons and nothing in the
 * hidden segments, often the whole article. The document is rearranged as the scripts would; a segment
 * without its call (inlined differently) is paired by its number with the template of the same number.
 */
export function resolveStreamedBoundaries(document: Document, html: string): void {
  if (!includesByTail(html, 'id="', 'S:')) return;
  const segments = new Map<string, Element>();
  const templates = new Map<string, Element>();
  const calls: [string, string][] = [];
  walk(document, (el) => {
    const id = el.attribs.id;
    if (el.name === 'script') {
      const source = el.children.map(textData).join('');
      for (const m of source.matchAll(CALL)) calls.push(m[1] === 'C' ? [m[2], m[3]] : [m[3], m[2]]);
      return false;
    }
    if (id === undefined) return true;
    if (el.name === 'template' && /^[BP]:/.test(id)) templates.set(id, el);
    else if (el.name === 'div' && el.attribs.hidden !== undefined && id.startsWith('S:')) segments.set(id, el);
    return true;
  });
  if (segments.size === 0) return;
  const paired = new Set(calls.map(([, segment]) => segment));
  for (const id of segments.keys()) {
    if (paired.has(id)) continue;
    const n = id.slice(2);
    if (templates.has(`B:${n}`)) calls.push([`B:${n}`, id]);
    else if (templates.has(`P:${n}`)) calls.push([`P:${n}`, id]);
  }
  for (const [target, segmentId] of calls) {
    const template = templates.get(target);
    const segment = segments.get(segmentId);
    if (!template || !segment || !template.parent || isInside(template, segment)) continue;
    if (target.startsWith('B:')) removeFallback(template);
    for (const child of [...segment.children]) {
      removeElement(child);
      prepend(template, child);
    }
    removeElement(template);
    removeElement(segment);
    segments.delete(segmentId);
  }
}

/** `$RC("B:0","S:0")` (boundary, segment) and `$RS("S:1","P:1")` (segment, placeholder), however minified. */
const CALL = /\$R(C|S)\(\s*["']([^"']+)["']\s*,\s*["']([^"']+)["']/g;

/**
 * The siblings after a boundary's template up to its closing `<!--/$-->` (nested boundaries counted); nothing when
 * the boundary is never closed (a cut-off page: what follows is not known to be the fallback).
 */
function removeFallback(template: Element): void {
  const fallback: AnyNode[] = [];
  let depth = 0;
  for (let node: AnyNode | null = template.next; node; node = node.next) {
    if (typeOf(node) === 'comment') {
      const data = (node as Comment).data;
      if (data === '/$') {
        if (depth === 0) {
          fallback.forEach(removeElement);
          return;
        }
        depth--;
      } else if (data.startsWith('$')) depth++;
    }
    fallback.push(node);
  }
}

function isInside(el: Element, ancestor: Element): boolean {
  for (let node: AnyNode | null = el; node; node = node.parent) if (node === ancestor) return true;
  return false;
}
