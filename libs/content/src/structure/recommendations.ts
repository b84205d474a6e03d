import { findFirst, isElement, textData, visibleLength, visibleText, walk, type AnyNode, type Document, type Element } from '../dom';
import { shortLines, type ShortLine } from './short-lines';

/**
 * The title of a shop's recommendation carousel ("Related products", "You may also like", "Frequently bought
 * together", "Customers also viewed", "Recently viewed", "Similar items ...", "Complete the look", "Recommended
 * accessories", "More from <brand>"): the whole text of the element that carries it.
 */
const RECOMMENDATIONS =
  /^(?:related (?:products?|items)(?: to explore)?|you (?:may|might|will) also (?:like|love|enjoy|be interested in)|customers (?:who (?:bought|viewed) this(?: item)? )?also (?:bought|viewed|purchased|liked)|frequently bought together|recently viewed(?: (?:products|items))?|similar (?:products|items)\b.{0,40}|complete the look\b.{0,40}|shop the look|recommended (?:for you|products|items|accessories)|you (?:may|might) also need|people (?:also|who viewed this also) (?:bought|viewed)|sponsored products\b.{0,40}|more from (?:this (?:seller|brand|shop|store)|[^.!?]{1,30}))[\s.…:!]*$/i;

/** A carousel holds several items, each a link: fewer links than this under the title is not the carousel yet. */
const RECOMMENDATIONS_MIN_LINKS = 3;

/** A block holding more than this share of the body's text is the page, not a carousel beside it. */
const RECOMMENDATIONS_MAX_SHARE = 0.5;

const HAS_WORD = /[\p{L}\p{N}]/u;

/**
 * The page's recommendation blocks: for each carousel title (RECOMMENDATIONS), the smallest block that starts
 * with it and holds RECOMMENDATIONS_MIN_LINKS links (the items), at most RECOMMENDATIONS_MAX_SHARE of the body's
 * text and without the page's `<h1>`; the title alone when its items are not in the markup (loaded by a script).
 * Other items for sale (or other stories), not what the page is about; true of every kind of page. The titles are
 * looked for among the page's short lines (structure/short-lines.ts), which the caller may have read already.
 */
export function recommendationBlocks(
  document: Document,
  isSkipped: (el: Element) => boolean,
  lines: readonly ShortLine[] = shortLines(document, isSkipped),
): Set<Element> {
  const body = findFirst(document, 'body') ?? document;
  const titles: Element[] = [];
  for (const { el, text } of lines) if (text.length > 3 && RECOMMENDATIONS.test(text)) titles.push(el);
  const blocks = new Set<Element>();
  if (titles.length === 0) return blocks;
  const bodyText = visibleLength(body);
  for (const title of titles) {
    const block = carouselOf(title, bodyText);
    if (block) blocks.add(block);
    else if (!HAS_WORD.test(visibleText(title).replace(RECOMMENDATIONS, ''))) blocks.add(title);
  }
  return blocks;
}

/** The smallest block that starts with `title` and holds a carousel's links, if one is small enough to be one. */
function carouselOf(title: Element, bodyText: number): Element | undefined {
  let node = title;
  for (;;) {
    const parent = node.parent;
    if (!parent || !isElement(parent) || parent.name === 'body' || parent.name === 'html' || parent.name === 'main') return undefined;
    if (textBefore(parent, node)) return undefined;
    node = parent;
    if (linkCount(node) < RECOMMENDATIONS_MIN_LINKS) continue;
    if (visibleLength(node) > RECOMMENDATIONS_MAX_SHARE * bodyText || findFirst(node, 'h1')) return undefined;
    return node;
  }
}

/** Whether any word precedes `child` inside `parent`. */
function textBefore(parent: Element, child: AnyNode): boolean {
  for (const sibling of parent.children) {
    if (sibling === child) return false;
    if (HAS_WORD.test(isElement(sibling) ? visibleText(sibling, 40) : textData(sibling))) return true;
  }
  return false;
}

function linkCount(root: Element): number {
  let links = 0;
  walk(root, (el) => {
    if (el.name === 'a' && el.attribs.href !== undefined) links++;
    return true;
  });
  return links;
}
