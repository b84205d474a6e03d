import { Element as ElementNode } from 'domhandler';
import { findFirst, isElement, type Document, type Element } from './dom';
import { CHAR_THRESHOLD, grabArticle, type Grab } from './readability/grabber';
import type { Census, GrabFlags } from './readability/types';
import { actionButtons } from './structure/action-buttons';
import { isAppShell } from './structure/app-shell';
import { cleanedSections } from './structure/cleaned-sections';
import { collapsedPanels } from './structure/collapsed-panels';
import { foldedAnswers } from './structure/folded-answers';
import { declaredDescriptionBlock } from './structure/declared-description';
import type { DeclaredKind } from './structure/declared-kind';
import { isHiddenByClass } from './structure/hidden-by-class';
import { isRendered, keepWhole, mainHeadings } from './structure/main-heading';
import { mainRegion, regionFurniture } from './structure/page-region';
import { mayBeProductPage, reviewBlocks } from './structure/product-reviews';
import { bylines } from './structure/bylines';
import { orphanHeadings } from './structure/orphan-headings';
import { screenReaderText } from './structure/screen-reader-text';
import { otherItems } from './structure/other-items';
import { productCopies } from './structure/product-copies';
import { machineStrings } from './structure/machine-strings';
import { markedCopies } from './structure/marked-copies';
import { placeholderLabels } from './structure/placeholder-labels';
import { postSignatures } from './structure/post-signatures';
import { quotedCopies } from './structure/quoted-copies';
import { recommendationBlocks } from './structure/recommendations';
import { shortLines } from './structure/short-lines';
import { signUps } from './structure/sign-ups';
import { groupOf, namesAKind } from './structure/repeated-blocks';
import { SkipVerdicts } from './structure/skip-verdicts';
import { textCensus, type CensusLists, type TextCount } from './structure/text-census';
import { isPeerThread, threadPosts } from './structure/thread-posts';
import { itemPanels } from './structure/item-panels';
import { sectionsBetween } from './structure/sections-between';
import { isStrayGrab } from './structure/stray-grab';
import { sectionsBeforeRun } from './structure/title-sections';
import { isListingDescription } from './structure/listing-description';
import { keepBlock, tableOfContents } from './structure/toc-links';
import { tileBadges } from './structure/tile-badges';
import { tileRepeats } from './structure/tile-repeats';
import { titleBlocks } from './structure/title-blocks';

/**
 * Main-content detection, without mutating the DOM, in named parts:
 * 0. folded text shown: an accordion's collapsed panels (structure/collapsed-panels.ts) and the answers of a list of
 *    questions a script folds without ARIA (structure/folded-answers.ts);
 * 1. the app shell (structure/app-shell.ts): a body that is a loading screen is read from its `<noscript>`;
 * 2. readability's grab (readability/grabber.ts), relaxed attempt by attempt while it finds too little (a figure that
 *    holds a table, a quotation or code is text: structure/text-figures.ts; a data table's wrappers are the table:
 *    structure/table-wrappers.ts);
 * 3. the main region (structure/page-region.ts): `<main>` or the body without its furniture; a grab that is a
 *    listing's description (structure/listing-description.ts) is no declared article's body;
 * 3b. on a declared product's page: a short grab beside the main region without the item's name or a price is a side
 *    block, the region is chosen (structure/stray-grab.ts);
 * Once the content is chosen (so that none of these moves the choice):
 * 4. in a run of items: an item's title block the cleaning left out shown again (structure/title-blocks.ts), an item's
 *    address read once (structure/tile-repeats.ts);
 * 5. on a declared product's page: the block showing its declared description (structure/declared-description.ts) and
 *    its accordion's panels the cleaning took out (structure/item-panels.ts) kept, strips of other items
 *    (structure/other-items.ts) and later copies of a block (structure/product-copies.ts) left out;
 * 6. on every page: machine identifiers drawn as text (structure/machine-strings.ts), a script's placeholders
 *    (structure/placeholder-labels.ts), a reply's quote of a whole earlier post (structure/quoted-copies.ts), a
 *    post's signature (structure/post-signatures.ts), a newsletter sign-up or a call to action (structure/sign-ups.ts)
 *    and a button (structure/action-buttons.ts) left out;
 * 7. the page's title headings (structure/main-heading.ts), a reference page's sections between its title and the
 *    chosen run (structure/title-sections.ts), the sections the grab's cleaning took out (structure/cleaned-sections.ts),
 *    a landing page's sections between the chosen ones (structure/sections-between.ts) and a chapter's table of
 *    contents (structure/toc-links.ts) kept;
 * 8. last, on every page: text drawn for screen readers only (structure/screen-reader-text.ts), a post's byline and
 *    reading time (structure/bylines.ts) and a heading whose section the cleaning took out
 *    (structure/orphan-headings.ts) left out.
 * After the detection, convert-html.ts: a page whose HTML holds no main content, only chrome, gets none, or its
 * description when that is a cut of its text (structure/no-main-content.ts).
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
  body: Element;
  grab: Grab;
  region: Grab;
  isSkipped: (el: Element) => boolean;
  /** The text census of the body (structure/text-census.ts). */
  counts: ReadonlyMap<Element, TextCount>;
}

/**
 * Readability's grab is precise on a page with one body of prose; when it holds little of the main region's
 * text, the content is spread over several blocks (sections, item grids, posts) and the region is the main
 * content. The share the grab must hold: less when the region is only the body without its furniture (no
 * `<main>`: it keeps more that is not content); on a page that declares itself an article, a small part: a
 * fifth when the grab is shorter than an article's body, a tenth however long it is (a block that size is a
 * fragment: one card of a guide, one widget of a landing page; site builders declare every page an article,
 * listings and landing pages included).
 */
function grabMinShare(region: Element, kinds: ReadonlySet<DeclaredKind>, grabLength: number): number {
  if (kinds.has('article')) return grabLength >= ARTICLE_MIN_TEXT ? ARTICLE_FRAGMENT_SHARE : ARTICLE_MIN_SHARE;
  return region.name === 'body' ? 0.6 : 0.7;
}

/** A declared article's grab holding less than this share of the region is a fragment, however long. */
const ARTICLE_FRAGMENT_SHARE = 0.1;
/** A declared article's grab shorter than this (characters)... */
const ARTICLE_MIN_TEXT = 1000;
/** ...and holding less than this share of the region is not the article. */
const ARTICLE_MIN_SHARE = 0.2;

/** How far above the grab's block a run of blocks is looked for. */
const WIDEN_MAX_LEVELS = 4;
/** A run replaces the grab when it holds this many times the grab's text... */
const WIDEN_MIN_GAIN = 1.1;
/** ...and this share of its parent's text. */
const WIDEN_MIN_SHARE = 0.5;

const ATTEMPTS: GrabFlags[] = [
  { stripUnlikely: true, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: false },
];

/** What the page says about itself that steers the detection (from its metadata). */
export interface PageDeclarations {
  kinds?: ReadonlySet<DeclaredKind>;
  /** The document's titles (`<title>`, `og:title`). */
  title?: string | readonly string[];
  /** The description its structured data gives the page's product (structure/declared-description.ts). */
  productDescription?: string;
}

export function extractMainContent(document: Document, hiddenSkips: (el: Element) => boolean, page: PageDeclarations = {}): MainContent {
  const kinds = page.kinds ?? new Set<DeclaredKind>();
  // An accordion's collapsed answers and a tab list's other panels are the page's text, folded: shown (structure/collapsed-panels.ts).
  const panels = collapsedPanels(document, hiddenSkips, { tabs: !kinds.has('product') });
  // A list of questions whose answers a script folds without ARIA: the answers shown (structure/folded-answers.ts).
  for (const el of foldedAnswers(document, hiddenSkips)) panels.add(el);
  const callerSkips = panels.size === 0 ? hiddenSkips : (el: Element) => !panels.has(el) && hiddenSkips(el);
  const reviewsOut = mayBeProductPage(kinds) ? reviewBlocks(document) : undefined;
  // Every later walk asks of each element it meets whether it is left out: each rule is asked once per element
  // (structure/skip-verdicts.ts), in this order: the caller's, a hiding class, a block of customers' reviews.
  const verdicts = new SkipVerdicts(document, reviewsOut ? [callerSkips, isHiddenByClass, reviewsOut] : [callerSkips, isHiddenByClass]);
  // The page's short lines, read once for the carousel titles and the tile labels (structure/short-lines.ts).
  const lines = shortLines(document, verdicts.skippedBy(1));
  // On every page: a store's carousels, and an article's "You may also like" the grab left in.
  const recommendationsOut = recommendationBlocks(document, verdicts.skippedBy(1), lines);
  // A grid's labels ("Best seller", "Sold out") and tile controls ("Select size"): decoration of its items.
  const badgesOut = tileBadges(document, verdicts.skippedBy(1), lines);
  // A block drawn again as a carousel clone, a mobile copy or a hidden copy: the copy a reader sees stays.
  const copiesOut = markedCopies(document, verdicts.skippedBy(2));
  verdicts.add(recommendationsOut);
  verdicts.add(badgesOut);
  verdicts.add(copiesOut);
  const isSkipped = verdicts.skipped;
  const c = mainContentCandidates(document, isSkipped, page.kinds);
  // A grab that is a listing's description (the text above a category's items) is no article, whatever the page declares.
  const listing = c.grab.roots.length === 1 && isListingDescription(c.grab.roots[0]);
  const share = grabMinShare(c.region.roots[0], listing ? new Set() : kinds, c.grab.length);
  const grabHolds = c.grab.length >= share * c.region.length;
  // A declared product's short grab without the item's name or a price is a side block (structure/stray-grab.ts).
  const stray = grabHolds && kinds.has('product') && !kinds.has('collection') && isStrayGrab(c.grab, c.region, c.isSkipped);
  const chosen = grabHolds && !stray ? c.grab : c.region;
  // Every part below asks whether an element is skipped, of the same elements: one look-up each (structure/skip-verdicts.ts).
  const skipped = c.isSkipped;
  const roots = [...chosen.roots];
  const run = [...chosen.roots];
  const removed = new Set(chosen.removed);
  // Once the content is chosen (so that it never moves the choice): an item's title block (a linked heading and its
  // date) the cleaning took for link furniture, shown again in a run of items (structure/title-blocks.ts).
  for (const el of titleBlocks(roots, removed, skipped)) removed.delete(el);
  // An item's picture link and its title linked again: the item's address read once (structure/tile-repeats.ts).
  for (const el of tileRepeats(roots, (el) => removed.has(el) || skipped(el))) removed.add(el);
  // A declared product's page, once its content is chosen (so that they never move the choice): its strips of
  // other items for sale, and the later copies of a block it draws once per layout.
  if (kinds.has('product') && !kinds.has('collection')) {
    // The block showing the product's declared description is content, whatever its names (structure/declared-description.ts).
    const description = page.productDescription && declaredDescriptionBlock(c.body, page.productDescription, skipped);
    if (description) keepBlock(description, roots, removed, skipped);
    // The item's details folded into an accordion inside the content, which the grab's cleaning took out whole (structure/item-panels.ts).
    for (const panel of itemPanels(document, roots, skipped)) keepBlock(panel, roots, removed, skipped);
    for (const el of otherItems(document, skipped)) removed.add(el);
    for (const el of productCopies(document, skipped, (el) => isRendered(el, roots, removed, skipped))) removed.add(el);
  }
  // Machine identifiers drawn as text (a label scrambled between random ids): no reader sees them (structure/machine-strings.ts).
  for (const el of machineStrings(document)) removed.add(el);
  // A script's placeholders ("Loading...", "Advertisement") the region kept (structure/placeholder-labels.ts).
  for (const el of placeholderLabels(roots, c.counts, (el) => !removed.has(el) && !skipped(el))) removed.add(el);
  // A reply's quote of a whole earlier post repeats it: the post stays, the copy goes (structure/quoted-copies.ts).
  for (const el of quotedCopies(roots, (el) => removed.has(el) || skipped(el))) removed.add(el);
  // A post's signature, the poster's standing lines under every post (structure/post-signatures.ts).
  for (const el of postSignatures(roots, (el) => removed.has(el) || skipped(el))) removed.add(el);
  // A newsletter sign-up or a call to action inside the content: asks of the reader, tells nothing (structure/sign-ups.ts).
  for (const el of signUps(roots, c.counts, skipped, (el) => removed.has(el))) removed.add(el);
  // A button in the content: something to press, not something the page says (structure/action-buttons.ts).
  for (const el of actionButtons(roots, c.counts, (el) => removed.has(el) || skipped(el))) removed.add(el);
  // The page's title stays with its content (a docs page's section heading sits above the winning block).
  const headings = mainHeadings(c.body, skipped, page.title, chosen.roots);
  for (const heading of [...headings].reverse()) {
    keepWhole(heading, removed);
    if (isRendered(heading, roots, removed, skipped)) continue;
    removed.delete(heading);
    // A heading the grab's cleaning took out of the content shows where it stands; one outside it goes on top.
    if (!isRendered(heading, roots, removed, skipped)) roots.unshift(heading);
  }
  // A reference page's Synopsis between its title and the sections the grab chose (structure/title-sections.ts).
  for (const section of sectionsBeforeRun(headings[0], run, c.counts, skipped)) keepBlock(section, roots, removed, skipped);
  // A section readability's cleaning took out of its grab that reads as one (structure/cleaned-sections.ts); not on a
  // page that declares an article (its cleaned blocks are an article's asides).
  if (chosen === c.grab && !kinds.has('article')) {
    for (const section of cleanedSections(roots, removed, c.counts, skipped)) {
      keepBlock(section, roots, removed, skipped);
      for (const el of regionFurniture(section, c.counts, skipped)) removed.add(el);
    }
  }
  // A landing page's sections readability left out between the ones it chose (structure/sections-between.ts).
  const between = kinds.has('article') ? [] : sectionsBetween(run, c.counts, skipped);
  for (const section of between) {
    keepBlock(section, roots, removed, skipped);
    for (const el of regionFurniture(section, c.counts, skipped)) removed.add(el);
  }
  // A chapter's table of contents is its content, however link-dense (structure/toc-links.ts).
  const toc = tableOfContents(headings[0], c.body, c.counts, skipped);
  if (toc) keepBlock(toc, roots, removed, skipped);
  // Text drawn for screen readers only ("Opens in a new window", a region's hidden label): no reader sees it
  // (structure/screen-reader-text.ts).
  const titles = new Set(headings);
  for (const el of screenReaderText(roots, c.counts, (el) => removed.has(el) || skipped(el), titles)) removed.add(el);
  // A post's byline and reading time: who wrote it and how long it takes (structure/bylines.ts).
  for (const el of bylines(roots, c.counts, (el) => removed.has(el) || skipped(el))) removed.add(el);
  // A heading whose section the cleaning took out ("You may also like" over removed cards) titles nothing (structure/orphan-headings.ts).
  for (const el of orphanHeadings(roots, (el) => removed.has(el) || skipped(el), titles)) removed.add(el);
  return { roots, removed, isSkipped: skipped };
}

export function mainContentCandidates(
  document: Document,
  callerSkips: (el: Element) => boolean,
  kinds: ReadonlySet<DeclaredKind> = new Set(),
): MainContentCandidates {
  const body = findFirst(document, 'body') ?? findFirst(document, 'html') ?? adoptIntoBody(document);
  // The caller's rule is one look-up per element (extractMainContent's skip verdicts, structure/skip-verdicts.ts).
  const isSkipped = isAppShell(body, callerSkips) ? (el: Element) => el.name !== 'noscript' && callerSkips(el) : callerSkips;
  // The census lists its texts' lengths and commas (the grab reads them instead of measuring them again) and the
  // elements that declare the main region.
  const lists: CensusLists = { lengths: [], commas: [], mains: [] };
  const counts = textCensus(body, isSkipped, lists);
  const grab = readabilityGrab(body, isSkipped, { counts, texts: lists });
  return {
    body,
    grab: widenToRepeatedBlocks(grab, body, counts, isSkipped) ?? widenToThread(grab, body, counts, isSkipped, mayBeThread(kinds)) ?? grab,
    region: regionGrab(body, counts, isSkipped, lists.mains),
    isSkipped,
    counts,
  };
}

/**
 * Readability picks one block; when that block is one of a run of blocks of its kind (a post of a thread, a
 * section of a reference page, an item of a listing) that holds much more text than the grab, the run is the
 * content: the grab widens to the run's parent, without its furniture (the run's members are kept whatever
 * their class names say).
 */
function widenToRepeatedBlocks(
  grab: Grab,
  body: Element,
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
): Grab | undefined {
  for (const root of grab.roots) {
    let node: Element = root;
    for (let level = 0; level < WIDEN_MAX_LEVELS && node !== body; level++) {
      const group = groupOf(node, counts);
      const parentText = counts.get(group?.parent ?? body)?.text ?? 0;
      if (group && namesAKind(group) && group.text >= WIDEN_MIN_GAIN * grab.length && group.text >= WIDEN_MIN_SHARE * parentText) {
        const widened = furnitureFree(group.parent, counts, isSkipped, new Set(group.items));
        // What the run adds once its furniture is out, not what it holds with it.
        if (widened.length >= WIDEN_MIN_GAIN * grab.length) return widened;
      }
      if (!node.parent || !isElement(node.parent)) break;
      node = node.parent;
    }
  }
  return undefined;
}

/**
 * A page that declares itself an article is one body of prose with comments below (unless it also declares a
 * discussion): only a thread of peer posts (structure/thread-posts.ts isPeerThread) is a thread there.
 */
function mayBeThread(kinds: ReadonlySet<DeclaredKind>): boolean {
  return kinds.has('discussion') || !kinds.has('article');
}

/**
 * Readability picks one post of a thread; the others, marked up the same but often in a replies section of their
 * own (structure/thread-posts.ts), are content too: the grab widens to the thread, without its furniture but
 * with every post and what holds them.
 */
function widenToThread(
  grab: Grab,
  body: Element,
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
  anyThread: boolean,
): Grab | undefined {
  if (grab.roots.length !== 1) return undefined;
  const thread = threadPosts(grab.roots[0], body, counts, WIDEN_MIN_GAIN * grab.length);
  // On a page that declares an article, only a forum's thread (posts as peers), not the comments under the article.
  if (!thread || (!anyThread && !isPeerThread(thread, counts))) return undefined;
  const widened = furnitureFree(thread.root, counts, isSkipped, thread.keep);
  return widened.length >= WIDEN_MIN_GAIN * grab.length ? widened : undefined;
}

function readabilityGrab(body: Element, isSkipped: (el: Element) => boolean, census: Census): Grab {
  let best: Grab | undefined;
  for (const flags of ATTEMPTS) {
    const grabbed = grabArticle(body, flags, isSkipped, census);
    if (grabbed.length >= CHAR_THRESHOLD) return grabbed;
    if (!best || grabbed.length > best.length) best = grabbed;
  }
  return best!;
}

function regionGrab(
  body: Element,
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
  mains: readonly Element[],
): Grab {
  return furnitureFree(mainRegion(body, counts, mains), counts, isSkipped);
}

/** `root` without its furniture, as a grab. */
function furnitureFree(
  root: Element,
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
  keep?: ReadonlySet<Element>,
): Grab {
  const removed = regionFurniture(root, counts, isSkipped, keep);
  let length = counts.get(root)?.text ?? 0;
  // Only the outermost removed elements subtract (their subtrees are not walked).
  for (const el of removed) length -= counts.get(el)?.text ?? 0;
  return { roots: [root], removed, length: Math.max(0, length) };
}

/** Fragments without <html>/<body>: wrap the top level so ancestors can be scored (the document is ours). */
function adoptIntoBody(document: Document): Element {
  const body = new ElementNode('body', {}, [...document.children]);
  for (const child of body.children) child.parent = body;
  body.parent = document;
  document.children = [body];
  return body;
}
