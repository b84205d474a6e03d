import { isElement, type Element } from '../dom';

/**
 * The names a shop or blog platform gives the text above a category's, tag's or archive's list of items
 * (`category-description`, `archive-description`, `term-description`, `cat-desc`, `c-listing__desc`). Not a
 * consent dialog's category description (`ot-category-desc`, `cookie-…-category-description`).
 */
const LISTING_DESCRIPTION = /(?:^|[-_ ])(?:archive|category|cat|term|taxonomy|listing)[-_]{0,2}desc(?:ription)?(?:$|[-_ ])/i;
const CONSENT = /(?:^|[-_ ])(?:ot|cookie|consent|wpconsent|gdpr|compliance)(?:$|[-_ ])/i;

/** How many levels above the grab's block the description's name may sit (the description's wrapper, its section). */
const NAME_MAX_DEPTH = 2;

/**
 * Whether readability's grab is the description of a listing (the prose above a category's, tag's or archive's
 * items). Blog platforms declare such pages articles, and a declared article's grab wins over the region however
 * little of it it holds (main-content.ts grabMinShare); a listing's description is no article: the grab must hold
 * the share of the region any page's grab must, else the region (the description and its items) is the content.
 */
export function isListingDescription(root: Element): boolean {
  let node: Element | null = root;
  for (let level = 0; level <= NAME_MAX_DEPTH && node && isElement(node); level++) {
    const names = `${node.attribs.class ?? ''} ${node.attribs.id ?? ''}`;
    if (LISTING_DESCRIPTION.test(names) && !CONSENT.test(names)) return true;
    node = node.parent as Element | null;
  }
  return false;
}
