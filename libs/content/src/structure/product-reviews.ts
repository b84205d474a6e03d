import { findFirst, visibleLength, walk, type AnyNode, type Document, type Element } from '../dom';
import type { DeclaredKind } from './declared-kind';

/** A class or id naming customers' reviews of the item (`reviews`, `product-reviews`, `customer-reviews_feature_div`). */
const REVIEWS =
  /(?:^|[-_])(?:reviews|customer-?reviews?|user-?reviews?|review-?(?:list|ctn|container|section|widget|stars?|summary))(?:$|[-_])/i;

/** What every name REVIEWS takes holds. */
const REVIEW_WORD = /review/i;

/**
 * Whether a page may be a product page, whose customers' reviews are not its content: it declares a product, or
 * declares neither an article nor a discussion (a review article or a thread of opinions is all reviews).
 */
export function mayBeProductPage(kinds: ReadonlySet<DeclaredKind>): boolean {
  return kinds.has('product') || (!kinds.has('article') && !kinds.has('discussion'));
}

/**
 * A block of customers' reviews under an item (named so by its class or id, or marked up as a schema.org review
 * of the item): what buyers say, not what the page says about the item. Never `<body>`/`<html>` (a theme names
 * its template there).
 */
export function isReviewBlock(el: Element): boolean {
  return reviewName(el) !== undefined;
}

/** The class or id that names `el` a review block (`itemprop` for schema.org's markup), if one does. */
function reviewName(el: Element): string | undefined {
  if (el.name === 'body' || el.name === 'html' || el.name === 'main') return undefined;
  if (el.attribs.itemprop === 'review') return 'itemprop=review';
  const { class: cls, id } = el.attribs;
  // Every name REVIEWS takes holds "review": an attribute without it is read through once, not split nor looked up.
  return (
    (cls === undefined || !REVIEW_WORD.test(cls) ? undefined : classReviewName(cls)) ??
    (id === undefined || !REVIEW_WORD.test(id) ? undefined : id.split(/\s+/).find((n) => REVIEWS.test(n)))
  );
}

/**
 * The class name that names a review block in a class attribute, remembered per attribute ('' for none): a page
 * repeats a few hundred class attributes over thousands of elements, and each pass asks again. Bounded, as the
 * content threads live long.
 */
function classReviewName(cls: string): string | undefined {
  let name = classesRead.get(cls);
  if (name === undefined) {
    name = cls.split(/\s+/).find((n) => REVIEWS.test(n)) ?? '';
    if (classesRead.size >= CLASSES_READ_MAX) classesRead.clear();
    classesRead.set(cls, name);
  }
  return name || undefined;
}

const classesRead = new Map<string, string>();
const CLASSES_READ_MAX = 10_000;

/** A review block holding more than this share of the body's text is the page itself (a page of reviews). */
const REVIEWS_MAX_SHARE = 0.5;

/** Fewer characters than this are an item's rating line ("4.8 · 312 reviews"), not its reviews. */
const REVIEWS_MIN_TEXT = 150;

/** A name on more elements than this marks a part of every item of a grid (each tile's review excerpt), not the item's reviews. */
const REVIEWS_MAX_NAMED = 2;

/**
 * The page's review blocks (isReviewBlock): of REVIEWS_MIN_TEXT characters or more, less than REVIEWS_MAX_SHARE of
 * the body's text, under a name at most REVIEWS_MAX_NAMED elements bear.
 */
export function reviewBlocks(document: Document): (el: Element) => boolean {
  let bodyText: number | undefined;
  let named: Map<string, number> | undefined;
  const seen = new Map<Element, boolean>();
  return (el) => {
    const name = reviewName(el);
    if (name === undefined) return false;
    let verdict = seen.get(el);
    if (verdict === undefined) {
      const body = findFirst(document, 'body') ?? document;
      bodyText ??= visibleLength(body);
      named ??= reviewNames(body);
      const text = visibleLength(el);
      verdict = text >= REVIEWS_MIN_TEXT && text <= REVIEWS_MAX_SHARE * bodyText && (named.get(name) ?? 0) <= REVIEWS_MAX_NAMED;
      seen.set(el, verdict);
    }
    return verdict;
  };
}

/** How many elements bear each review name. */
function reviewNames(root: AnyNode): Map<string, number> {
  const named = new Map<string, number>();
  walk(root, (el) => {
    const name = reviewName(el);
    if (name !== undefined) named.set(name, (named.get(name) ?? 0) + 1);
    return true;
  });
  return named;
}
