import { isElement, textData, typeOf, visibleLength, visibleText, walk, type AnyNode, type Element } from '../dom';

/** The closest block holding both links is an item when its text is shorter than this (characters), not a page's section. */
const TILE_MAX_TEXT = 1200;

/** An item's links repeat over a grid: fewer repeated items than this are the page's own links, left alone. */
const TILE_MIN_REPEATS = 3;

/** A link's text repeated in one item is a title (three words or more), not a tag or a place repeated by chance. */
const TITLE_MIN_WORDS = 3;

/** How many levels above a picture link its item's caption may sit (the picture's wrapper, the card). */
const CAPTION_MAX_DEPTH = 2;

/** A line shorter than this may repeat in an item for a reason (a label, a price). */
const LINE_MIN_TEXT = 6;

const HEADING = /^h[1-6]$/;

interface ItemLink {
  el: Element;
  /** Visible text, whitespace collapsed, lower-cased ('' for a picture link). */
  text: string;
  /** Holds an image with alt text (which the text output shows). */
  picture: boolean;
}

/**
 * The second link of an item to its own address. A listing's item (a story card, an event, a search result)
 * links its address twice or more: its picture, its title, sometimes its title again under the picture or its
 * author's name beside the avatar. A reader sees the title once; the text shows the picture's alt text (often the
 * title again) and every copy. When two links to one address sit in one item (their closest common block holds
 * less than TILE_MAX_TEXT characters):
 * - a picture link (an image with alt text and no text of its own) goes when the other link has text;
 * - a link whose text repeats the other's word for word goes, the one in a heading staying (else the first).
 * Only the links the chosen content shows count (`roots` without what `isSkipped` leaves out): a title block
 * left out (cleaned out as link-dense) leaves the picture as the item's only title. Only on pages where at least
 * TILE_MIN_REPEATS items do so (a grid of items, not one article's link). In an item found so (one title: its
 * links of title length lead to one address), a line of LINE_MIN_TEXT characters or more drawn again (a date and
 * read time under the picture and under the title, a tile drawn once per layout) is left out after its first copy.
 */
export function tileRepeats(roots: readonly AnyNode[], isSkipped: (el: Element) => boolean): Set<Element> {
  const byHref = new Map<string, Element[]>();
  for (const root of roots) {
    walk(root, (el) => {
      if (isSkipped(el)) return false;
      if (el.name !== 'a') return true;
      const href = (el.attribs.href ?? '').trim();
      if (href === '' || href.startsWith('#') || /^javascript:/i.test(href)) return false;
      const links = byHref.get(href);
      if (links) links.push(el);
      else byHref.set(href, [el]);
      return false;
    });
  }
  const repeats = new Set<Element>();
  // The blocks holding an item's repeats, each once: the clusters of a grid often meet in one block (a table
  // of a list page's rows), read once for its lines.
  const itemBlocks = new Set<Element>();
  let items = 0;
  // Whether a block is an item's size, read once per block: the links of a grid ask of the same blocks.
  const sized = new Map<Element, boolean>();
  const isItemSized = (el: Element): boolean => {
    let answer = sized.get(el);
    if (answer === undefined) {
      answer = visibleLength(el, TILE_MAX_TEXT) < TILE_MAX_TEXT;
      sized.set(el, answer);
    }
    return answer;
  };
  // A link's text and picture read once: the clusters and the captioned pictures both ask.
  const read = new Map<Element, ItemLink>();
  const linkOf = (el: Element): ItemLink => {
    let link = read.get(el);
    if (!link) {
      link = itemLink(el);
      read.set(el, link);
    }
    return link;
  };
  for (const els of byHref.values()) {
    if (els.length < 2) continue;
    let found = false;
    for (const cluster of itemClusters(els.map(linkOf), isItemSized)) {
      const before = repeats.size;
      const named = cluster.some((l) => l.text !== '');
      for (const link of cluster) if (named && link.text === '' && link.picture) repeats.add(link.el);
      const byText = new Map<string, ItemLink[]>();
      for (const link of cluster) {
        if ((link.text.match(/\w+/g) ?? []).length < TITLE_MIN_WORDS || inRunningText(link.el)) continue;
        const same = byText.get(link.text);
        if (same) same.push(link);
        else byText.set(link.text, [link]);
      }
      for (const same of byText.values()) {
        if (same.length < 2) continue;
        const kept = same.find((l) => inHeading(l.el)) ?? same[0];
        for (const link of same) if (link !== kept) repeats.add(link.el);
      }
      if (repeats.size > before) {
        found = true;
        const block = cluster.slice(1).reduce<Element | undefined>((acc, l) => acc && commonBlock(acc, l.el), cluster[0].el);
        if (block) itemBlocks.add(block);
      }
    }
    if (found) items++;
  }
  // A picture link beside its item's name in plain text: the name reads twice (captionedPictures).
  // (A link's text is read only when it holds a picture: most do not.)
  const pictures = [...byHref.values()].flat().filter((el) => {
    const link = read.get(el);
    return link ? link.text === '' && link.picture : holdsPicture(el) && linkText(el) === '';
  });
  const captioned = captionedPictures(pictures, isSkipped, isItemSized);
  if (items < TILE_MIN_REPEATS) return new Set(captioned);
  for (const el of captioned) repeats.add(el);
  // One item has one title: a block with links of title length to two addresses spans several items.
  for (const block of itemBlocks) if (titleAddresses(block) <= 1) for (const el of lineCopies(block, isSkipped, repeats)) repeats.add(el);
  return repeats;
}

function titleAddresses(block: Element): number {
  const hrefs = new Set<string>();
  walk(block, (el) => {
    if (el.name !== 'a') return true;
    if ((visibleText(el, 200).match(/\w+/g) ?? []).length >= TITLE_MIN_WORDS) hrefs.add((el.attribs.href ?? '').trim());
    return false;
  });
  return hrefs.size;
}

/** Lines of an item drawn twice (a card's date and read time under its picture and again under its title): the later copies. */
function lineCopies(item: Element, isSkipped: (el: Element) => boolean, out: ReadonlySet<Element>): Element[] {
  const seen = new Set<string>();
  const copies: Element[] = [];
  walk(item, (el) => {
    if (isSkipped(el) || out.has(el)) return false;
    if (el.children.some(isElement)) return true;
    const text = visibleText(el, 200).toLowerCase();
    if (text.length < LINE_MIN_TEXT) return false;
    if (seen.has(text)) copies.push(el);
    else seen.add(text);
    return false;
  });
  return copies;
}

function itemLink(el: Element): ItemLink {
  return { el, text: linkText(el), picture: holdsPicture(el) };
}

/** A link's visible text, whitespace collapsed, lower-cased. */
function linkText(el: Element): string {
  return visibleText(el, 400).toLowerCase();
}

/** Whether a link holds an image with alt text. */
function holdsPicture(el: Element): boolean {
  let picture = false;
  walk(el, (inner) => {
    if (inner.name === 'img' && (inner.attribs.alt ?? '').trim() !== '') picture = true;
    return !picture;
  });
  return picture;
}

/**
 * Runs of consecutive links to one address that sit in one item: the closest block holding the whole run holds
 * less than TILE_MAX_TEXT characters. A run of one is no item's repeat.
 */
function itemClusters(links: ItemLink[], isItemSized: (el: Element) => boolean): ItemLink[][] {
  const clusters: ItemLink[][] = [];
  let run: ItemLink[] = [];
  let root: Element | undefined;
  for (const link of links) {
    const joined = root ? commonBlock(root, link.el) : link.el;
    if (joined && isItemSized(joined)) {
      run.push(link);
      root = joined;
      continue;
    }
    if (run.length >= 2) clusters.push(run);
    run = [link];
    root = link.el;
  }
  if (run.length >= 2) clusters.push(run);
  return clusters;
}

/** A link inside a sentence (text beside it in its parent): prose that names the item, not a title. */
function inRunningText(el: Element): boolean {
  const parent = el.parent;
  if (!parent || !isElement(parent)) return false;
  return parent.children.some((c) => typeOf(c) === 'text' && /\w/.test(textData(c)));
}

function inHeading(el: Element): boolean {
  for (let node: Element | null = el; node && isElement(node); node = node.parent as Element | null) {
    if (HEADING.test(node.name)) return true;
  }
  let heading = false;
  walk(el, (inner) => {
    if (HEADING.test(inner.name)) heading = true;
    return !heading;
  });
  return heading;
}

/** The closest element holding both. */
function commonBlock(a: Element, b: Element): Element | undefined {
  const ancestors = new Set<Element>();
  for (let node: Element | null = a; node && isElement(node); node = node.parent as Element | null) ancestors.add(node);
  for (let node: Element | null = b; node && isElement(node); node = node.parent as Element | null) if (ancestors.has(node)) return node;
  return undefined;
}

/**
 * Picture links whose alt text repeats their item's caption word for word: an item drawn as a linked picture and
 * its name as plain text beside it (not a link, so no second link to the address). The text output shows the
 * picture's alt text, so the name reads twice. Only when TILE_MIN_REPEATS items on the page do so.
 */
function captionedPictures(
  pictures: readonly Element[],
  isSkipped: (el: Element) => boolean,
  isItemSized: (el: Element) => boolean,
): Element[] {
  // The pictures whose alt text is a title: fewer than TILE_MIN_REPEATS of them find too few, and no item is read.
  const titled: { link: Element; alt: string }[] = [];
  for (const link of pictures) {
    const alt = altText(link);
    if ((alt.match(/\w+/g) ?? []).length >= TITLE_MIN_WORDS) titled.push({ link, alt });
  }
  if (titled.length < TILE_MIN_REPEATS) return [];
  // A leaf's line read once: an item's wrapper and the card above it hold the same leaves.
  const lines = new Map<Element, string>();
  const lineOf = (el: Element): string => {
    let line = lines.get(el);
    if (line === undefined) {
      line = visibleText(el, 400).toLowerCase();
      lines.set(el, line);
    }
    return line;
  };
  const found: Element[] = [];
  for (const { link, alt } of titled) {
    let node: Element = link;
    for (let level = 0; level < CAPTION_MAX_DEPTH; level++) {
      const parent = node.parent;
      if (!parent || !isElement(parent) || !isItemSized(parent)) break;
      if (holdsLine(parent, link, alt, isSkipped, lineOf)) {
        found.push(link);
        break;
      }
      node = parent;
    }
  }
  return found.length >= TILE_MIN_REPEATS ? found : [];
}

/** The alt text of a link's images, whitespace collapsed, lower-cased. */
function altText(link: Element): string {
  const alts: string[] = [];
  walk(link, (el) => {
    if (el.name === 'img') alts.push((el.attribs.alt ?? '').trim());
    return true;
  });
  return alts.join(' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Whether a leaf block under `root` (outside `except`) says `line` word for word (`lineOf`: a leaf's visible text, lower-cased). */
function holdsLine(
  root: Element,
  except: Element,
  line: string,
  isSkipped: (el: Element) => boolean,
  lineOf: (el: Element) => string,
): boolean {
  let found = false;
  walk(root, (el) => {
    if (found || el === except || isSkipped(el)) return false;
    if (el.children.some(isElement)) return true;
    if (lineOf(el) === line) found = true;
    return false;
  });
  return found;
}
