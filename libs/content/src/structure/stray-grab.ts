import { isElement, textData, typeOf, type AnyNode, type Element } from '../dom';
import { PRICE } from './other-items';

/** A grab shorter than this (characters) may be a side block rather than the item's block. */
const STRAY_MAX_TEXT = 1000;

/** A grab or a region: roots to render, less what is removed. */
export interface ShownBlock {
  roots: readonly Element[];
  removed: ReadonlySet<Element>;
  length: number;
}

/**
 * On a page that declares a product, readability may pick a short side block (a dialog, a store notice, a
 * sheet) beside the page's main region over the item's own block. A grab of fewer than STRAY_MAX_TEXT
 * characters, outside the main region (a `<main>`: not inside it), that shows neither the item's name (an
 * `<h1>`) nor a price is such a block when the main region shows an `<h1>` (the item's block, titled by its
 * name; its price may be drawn by a script): the region is then the content.
 */
export function isStrayGrab(grab: ShownBlock, region: ShownBlock, isSkipped: (el: Element) => boolean): boolean {
  if (grab.length >= STRAY_MAX_TEXT || grab.roots.some((root) => within(root, region.roots))) return false;
  const inGrab = shown(grab, isSkipped);
  if (inGrab.heading || PRICE.test(inGrab.text)) return false;
  return shown(region, isSkipped).heading;
}

/** Whether `el` is one of `roots` or inside one. */
function within(el: Element, roots: readonly Element[]): boolean {
  for (let node: Element | null = el; node && isElement(node); node = node.parent as Element | null) if (roots.includes(node)) return true;
  return false;
}

/** Whether `block` shows an `<h1>`, and the text it shows. */
function shown(block: ShownBlock, isSkipped: (el: Element) => boolean): { heading: boolean; text: string } {
  let heading = false;
  const parts: string[] = [];
  for (const root of block.roots) {
    const visit = (node: AnyNode) => {
      if (typeOf(node) === 'text') parts.push(textData(node));
      if (!isElement(node)) return;
      if (node !== root && (block.removed.has(node) || isSkipped(node))) return;
      if (node.name === 'h1') heading = true;
      for (const child of node.children) visit(child);
    };
    visit(root);
  }
  return { heading, text: parts.join(' ').replace(/\s+/g, ' ') };
}
