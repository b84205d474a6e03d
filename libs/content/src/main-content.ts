import { Element as ElementNode } from 'domhandler';
import { findFirst, type Document, type Element } from './dom';
import { CHAR_THRESHOLD, grabArticle, type Grab } from './readability/grabber';
import type { GrabFlags } from './readability/types';
import { isAppShell } from './structure/app-shell';
import type { DeclaredKind } from './structure/declared-kind';
import { mainRegion, regionFurniture } from './structure/page-region';
import { textCensus } from './structure/text-census';

/**
 * Main-content detection, without mutating the DOM, in named parts:
 * 1. the app shell (structure/app-shell.ts): a body that is a loading screen is read from its `<noscript>`;
 * 2. readability's grab (readability/grabber.ts), relaxed attempt by attempt while it finds too little;
 * 3. the main region (structure/page-region.ts): `<main>` or the body without its furniture.
 */
export interface MainContent {
  /** Elements to render, in document order. */
  roots: Element[];
  /** Descendants of `roots` to leave out. */
  removed: Set<Element>;
  /** Elements never rendered (the caller's rule, `<noscript>` shown for an app shell). */
  isSkipped: (el: Element) => boolean;
}

export interface MainContentCandidates {
  grab: Grab;
  region: Grab;
  isSkipped: (el: Element) => boolean;
}

/**
 * Readability's grab is precise on a page with one body of prose; when it holds little of the main region's
 * text, the content is spread over several blocks (sections, item grids, posts) and the region is the main
 * content. The share the grab must hold: none on a page that declares itself an article (its body is prose);
 * less when the region is only the body without its furniture (no `<main>`: it keeps more that is not content).
 */
function grabMinShare(region: Element, kinds: ReadonlySet<DeclaredKind>): number {
  if (kinds.has('article')) return 0;
  return region.name === 'body' ? 0.6 : 0.7;
}

const ATTEMPTS: GrabFlags[] = [
  { stripUnlikely: true, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: false },
];

export function extractMainContent(
  document: Document,
  isSkipped: (el: Element) => boolean,
  kinds: ReadonlySet<DeclaredKind> = new Set(),
): MainContent {
  const c = mainContentCandidates(document, isSkipped);
  const chosen = c.grab.length >= grabMinShare(c.region.roots[0], kinds) * c.region.length ? c.grab : c.region;
  return { roots: chosen.roots, removed: chosen.removed, isSkipped: c.isSkipped };
}

export function mainContentCandidates(document: Document, callerSkips: (el: Element) => boolean): MainContentCandidates {
  const body = findFirst(document, 'body') ?? findFirst(document, 'html') ?? adoptIntoBody(document);
  const isSkipped = isAppShell(body, callerSkips) ? (el: Element) => el.name !== 'noscript' && callerSkips(el) : callerSkips;
  return { grab: readabilityGrab(body, isSkipped), region: regionGrab(body, isSkipped), isSkipped };
}

function readabilityGrab(body: Element, isSkipped: (el: Element) => boolean): Grab {
  let best: Grab | undefined;
  for (const flags of ATTEMPTS) {
    const grabbed = grabArticle(body, flags, isSkipped);
    if (grabbed.length >= CHAR_THRESHOLD) return grabbed;
    if (!best || grabbed.length > best.length) best = grabbed;
  }
  return best!;
}

function regionGrab(body: Element, isSkipped: (el: Element) => boolean): Grab {
  const counts = textCensus(body, isSkipped);
  const region = mainRegion(body, counts);
  const removed = regionFurniture(region, counts, isSkipped);
  let length = counts.get(region)?.text ?? 0;
  for (const el of removed) {
    // Only the outermost removed elements subtract (their subtrees are not walked).
    length -= counts.get(el)?.text ?? 0;
  }
  return { roots: [region], removed, length: Math.max(0, length) };
}

/** Fragments without <html>/<body>: wrap the top level so ancestors can be scored (the document is ours). */
function adoptIntoBody(document: Document): Element {
  const body = new ElementNode('body', {}, [...document.children]);
  for (const child of body.children) child.parent = body;
  body.parent = document;
  document.children = [body];
  return body;
}
