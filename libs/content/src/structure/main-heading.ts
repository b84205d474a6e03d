import { compareDocumentPosition } from 'domutils';
import { HEADING_LEVELS, isElement, walk, type Element } from '../dom';
import { textOf } from '../readability/text-measure';

/** A heading says what the title says when this share of its words is in the title... */
const TITLE_MATCH = 0.8;
/** ...and it holds this share of the title's words (a title may add the site's name). */
const TITLE_COVERAGE = 0.6;
/** The top heading stays beside a title-matching one when this share of its words is in the title. */
const TOP_MIN_SHARED = 0.5;
/**
 * A heading that only links to the home page is a logo, unless it says the whole title in at least this many
 * words (a listing's `<h1>` linked home that reads "Remote Full-Stack Programming Jobs")...
 */
const LOGO_MAX_WORDS = 3;
/** ...covering at least this share of it. */
const LOGO_MAX_COVERAGE = 0.8;
/** Never holds the title (a kind in NAME_KINDS). */
const NEVER = -1;
/** Holds a logo, menus or widgets; a heading there titles the page only when it says the title (a kind in NAME_KINDS). */
const ASIDE = 0;
/**
 * What an element's name says to the search for the title, in one look-up per element: a heading's level (1-6),
 * NEVER (nav, footer, dialog, template) or ASIDE (aside); other names are none of them.
 */
const NAME_KINDS = new Map<string, number>([
  ...HEADING_LEVELS,
  ['nav', NEVER],
  ['footer', NEVER],
  ['dialog', NEVER],
  ['template', NEVER],
  ['aside', ASIDE],
]);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'menu', 'menubar']);
/** A link to the site's home page: what a logo heading holds. */
const HOME_HREF = /^(?:https?:\/\/[^/]+)?\/?(?:index\.\w+)?(?:[?#].*)?$/i;
/** A link to a place on the page itself (`#`, `#top`) is not a link home. */
const SAME_PAGE_HREF = /^#/;

/**
 * The page's main heading, among the visible headings outside navigation, footers, asides and dialogs (a logo,
 * a heading that only links to the home page, is not one): the heading that says what the document's title
 * says (its words nearly all in the title, and most of the title; of the highest level, then the closest, then
 * the first), else the heading of the highest level present whose words are most in the title (the
 * first on a tie: a template's placeholder or a "The Blog" banner above the post's own `<h1>` says nothing of
 * the title). A documentation page titles itself with its top heading whatever its level (`<h2 class="title">`
 * for a section, `<h1>` for a chapter); a blog names itself in an `<h1>` above the post's title.
 */
export function mainHeading(
  body: Element,
  isSkipped: (el: Element) => boolean,
  documentTitle: string | readonly string[] = '',
): Element | undefined {
  return mainHeadings(body, isSkipped, documentTitle)[0];
}

/**
 * The main heading (mainHeading), then the page's top heading when that is another one that still shares at least
 * TOP_MIN_SHARED of its words with the title: a post whose `<h1>` words its title otherwise than the document's
 * title does, above a section heading that repeats the title. Both title the page; both stay with its content.
 * `content` is the chosen content's roots: of one level, a heading in it outranks one after it.
 */
export function mainHeadings(
  body: Element,
  isSkipped: (el: Element) => boolean,
  documentTitle: string | readonly string[] = '',
  content: readonly Element[] = [],
): Element[] {
  // The document's titles (`<title>`, `og:title`): a heading says what one of them says.
  const documentTitles = typeof documentTitle === 'string' ? [documentTitle] : documentTitle;
  const titles = documentTitles.map(words).filter((t) => t.size > 0);
  const siteNames = documentTitles.map(siteName).filter((t) => t.size > 0);
  const titleWords = new Set(titles.flatMap((t) => [...t]));
  // The titles without the site's name after their last separator ("Reviews of our classes — Yoga With Olivia").
  const pageTitles = documentTitles.map(pageName).filter((t) => t.size > 0);
  let top: Element | undefined;
  let topLevel = 7;
  let topShare = 0;
  let topPlace: Place = 'before';
  let titled: Element | undefined;
  let titledScore = 0;
  let titledLevel = 7;
  let fullest: Element | undefined;
  let fullestScore = 0;
  let fullestOfPage: Element | undefined;
  let fullestOfPageScore = 0;
  const coverageOfPage = new Map<Element, number>();
  const visit = (el: Element): boolean => {
    if (isSkipped(el)) return false;
    const kind = NAME_KINDS.get(el.name);
    if (kind === NEVER) return false;
    // A site's banner, an aside: a heading there titles the page only when it says the title.
    const role = el.attribs.role;
    const aside = role === 'banner' || kind === ASIDE;
    if (role !== undefined && role !== 'banner' && CHROME_ROLES.has(role)) return false;
    const level = kind === undefined || kind === ASIDE ? undefined : kind;
    if (level === undefined) {
      if (!aside) return true;
      asideDepth++;
      walk(el, visit);
      asideDepth--;
      return false;
    }
    const inAside = asideDepth > 0;
    const headingWords = words(textOf(el));
    if (headingWords.size === 0) return false;
    const shared = sharedWords(headingWords, titleWords);
    // Of the heading's own words (a longer heading shares the site's name with the title by chance).
    const share = shared / headingWords.size;
    // What share of one of the titles the heading says.
    const coverage = Math.max(0, ...titles.map((t) => sharedWords(headingWords, t) / t.size));
    const saysTitle = share >= TITLE_MATCH && coverage >= TITLE_COVERAGE;
    if (isLogo(el) && !(saysTitle && coverage >= LOGO_MAX_COVERAGE && headingWords.size >= LOGO_MAX_WORDS)) return false;
    if (inAside && !(saysTitle && headingWords.size >= LOGO_MAX_WORDS)) return false;
    // A heading that says only the site's name in the title ("… - The Rust Programming Language"), or only words of it
    // and none of the page's ("Kabar Islam" beside "… | Kabar tentang Dunia Islam"), names the site.
    const ofSiteOnly = (name: ReadonlySet<string>) =>
      [...headingWords].every((w) => name.has(w)) && !pageTitles.some((t) => sharesAny(headingWords, t));
    if (!saysTitle && siteNames.some((name) => saysAll(headingWords, name) || ofSiteOnly(name))) return false;
    // Of one level, a heading after the chosen content (a widget's title under the story) loses to one in it (the
    // story's headline), then the heading whose words are most in the title wins.
    const place = placeOf(el, content);
    const better =
      level < topLevel || (level === topLevel && (outranks(place, topPlace) || (!outranks(topPlace, place) && share > topShare)));
    if (better) {
      top = el;
      topLevel = level;
      topShare = share;
      topPlace = place;
    }
    if (saysTitle) {
      if (level < titledLevel || (level === titledLevel && coverage > titledScore)) {
        titled = el;
        titledScore = coverage;
        titledLevel = level;
      }
      // Whole: the heading that says the most of the title (the first of those), whatever its level.
      if (coverage > fullestScore) {
        fullest = el;
        fullestScore = coverage;
      }
    }
    // Of the title without the site's name: a heading that says most of it, whose words are nearly all in it.
    const ofPage = Math.max(0, ...pageTitles.map((t) => sharedWords(headingWords, t) / t.size));
    coverageOfPage.set(el, ofPage);
    if (share >= TITLE_MATCH && ofPage >= TITLE_COVERAGE && ofPage > fullestOfPageScore) {
      fullestOfPage = el;
      fullestOfPageScore = ofPage;
    }
    return false;
  };
  let asideDepth = 0;
  walk(body, visit);
  const first = titled ?? top;
  if (!first) return [];
  const headings = [first];
  if (top && top !== first && topShare >= TOP_MIN_SHARED) headings.push(top);
  // A lower heading that says the title more fully than the main one ("Best X for Seniors in 2025" under a hero's
  // "Best X for Seniors") titles the page too.
  if (fullest && !headings.includes(fullest) && fullestScore > titledScore) headings.push(fullest);
  // So does one that says the title without the site's name when no heading kept says as much of it (a page's
  // "Reviews" <h1> above its "Reviews of our yoga classes", the site's name making the title too long to match).
  const keptOfPage = Math.max(0, ...headings.map((h) => coverageOfPage.get(h) ?? 0));
  if (fullestOfPage && !headings.includes(fullestOfPage) && fullestOfPageScore > keptOfPage) headings.push(fullestOfPage);
  return headings;
}

/**
 * Whether `el` is rendered with `roots` minus `removed`: it lies under a root and neither it nor an ancestor
 * on the way is removed or skipped.
 */
export function isRendered(
  el: Element,
  roots: readonly Element[],
  removed: ReadonlySet<Element>,
  isSkipped: (el: Element) => boolean,
): boolean {
  const rootSet = new Set(roots);
  for (let node: Element | null = el; node && isElement(node); node = node.parent as Element | null) {
    if (removed.has(node) || isSkipped(node)) return false;
    if (rootSet.has(node)) return true;
  }
  return false;
}

/** `heading` whole: what the grab's cleaning took out of it (a date in a post's title, "Dec 18 2025") goes back in. */
export function keepWhole(heading: Element, removed: Set<Element>): void {
  for (const el of [...removed]) {
    for (let node = el.parent; node; node = node.parent) {
      if (node === heading) {
        removed.delete(el);
        break;
      }
    }
  }
}

/**
 * The words of the last part of a title that a separator (" - ", " | ") splits: where a page puts the site's name
 * ("Defining Shared Behavior with Traits - The Rust Programming Language"); nothing for a title of one part.
 */
function siteName(title: string): Set<string> {
  const parts = title.split(TITLE_SEPARATOR);
  return parts.length < 2 ? new Set() : words(parts[parts.length - 1]);
}

const TITLE_SEPARATOR = /\s+[-|–—·]{1,2}\s+/;

/** The words of a title without its last part when a separator splits it (the site's name); nothing for one part. */
function pageName(title: string): Set<string> {
  const parts = title.split(TITLE_SEPARATOR);
  return parts.length < 2 ? new Set() : words(parts.slice(0, -1).join(' '));
}

function sharesAny(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const word of a) if (b.has(word)) return true;
  return false;
}

/** How many of `words` `other` holds. */
function sharedWords(words: ReadonlySet<string>, other: ReadonlySet<string>): number {
  let shared = 0;
  for (const word of words) if (other.has(word)) shared++;
  return shared;
}

/** Whether `heading` says `name` and nothing else. */
function saysAll(heading: ReadonlySet<string>, name: ReadonlySet<string>): boolean {
  const shared = sharedWords(heading, name);
  return shared >= TITLE_MATCH * heading.size && shared >= TITLE_MATCH * name.size;
}

/** Where a heading stands to the chosen content. */
type Place = 'before' | 'inside' | 'after';

function placeOf(el: Element, roots: readonly Element[]): Place {
  if (roots.length === 0) return 'before';
  for (let node: Element | null = el; node && isElement(node); node = node.parent as Element | null)
    if (roots.includes(node)) return 'inside';
  return roots.every((root) => compareDocumentPosition(el, root) === FOLLOWING) ? 'after' : 'before';
}

/** A heading in the content outranks one after it. */
function outranks(a: Place, b: Place): boolean {
  return a === 'inside' && b === 'after';
}

/** domutils' DocumentPosition.FOLLOWING (a const enum): the first node follows the second (neither holds the other). */
const FOLLOWING = 4;

function isLogo(heading: Element): boolean {
  const links = heading.children.filter(isElement);
  if (links.length !== 1 || links[0].name !== 'a') return false;
  const onlyChild = heading.children.every((c) => c === links[0] || !/\S/.test(textOf(c as Element)));
  const href = links[0].attribs.href?.trim() ?? '';
  return onlyChild && HOME_HREF.test(href) && !SAME_PAGE_HREF.test(href);
}

/** Words cut to their first five letters, so that "certificate" and "certifications" count as one. */
function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => w.slice(0, 5)));
}
