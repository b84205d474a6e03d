import { isElement, walk, type Element } from '../dom';
import { isExcluded } from '../readability/signals';
import { isSiteChrome } from '../site-chrome';
import { ItemGrid } from './item-grid';
import { isNamedSection } from './named-sections';
import { isPageWrapper } from './page-wrapper';
import type { TextCount } from './text-census';

/** A `<main>` holding less than this share of the body's text is a fragment, not the page's main region. */
const MAIN_MIN_SHARE = 0.2;
/** A block whose text is at least this share of link text, in at least MENU_MIN_LINKS short links, is a menu. */
const MENU_LINK_SHARE = 0.9;
const MENU_MIN_LINKS = 3;
const MENU_MAX_LINK_TEXT = 30;
/** A menu whose lists nest this deep (departments, then categories) is a site's mega-menu, not an index. */
const MEGA_MENU_MIN_DEPTH = 2;

const FURNITURE_ROLES = new Set([
  'complementary',
  'dialog',
  'alertdialog',
  'search',
  'menu',
  'menubar',
  'navigation',
  'banner',
  'contentinfo',
]);
/** Controls of a page, not its content: filters, sorting, paging, breadcrumbs, tool bars, buttons and calls to action, form controls. */
const CONTROLS =
  /(?:^|[-_ ])(?:filters?|facets?|refine(?:ments)?|sort(?:ing|by|-by)?|toolbar|breadcrumbs?|pagination|pager|paging)(?:$|[-_ ])/i;
/** What a post says about its author rather than the topic: the poster's card (join date, post count) and signature. */
const POSTER =
  /(?:^|[-_ ])(?:user-?info|member-?info|user-?details|user-?stats|author-?info|post-?profile|postprofile|signature)(?:$|[-_ ])/i;
/** A button or call to action ("Get started", "Shop now"): a few words named or marked as one. */
const BUTTON = /(?:^|[-_ ])(?:btn|button|cta)(?:$|[-_ ])/i;
const BUTTON_MAX_TEXT = 40;
/** Controls hold little of what their region shows: a block named like one but holding more is the listing itself. */
const CONTROLS_MAX_SHARE = 0.2;
const CONTROL_TAGS = new Set(['button', 'select', 'label', 'input', 'textarea']);
const STRICT = { stripUnlikely: true, weightClasses: true, cleanConditionally: true };
const BY_TAG_AND_ROLE = { ...STRICT, stripUnlikely: false };

/**
 * The page's main region: the `<main>` (or `role="main"`) element holding the most text when it holds enough, else
 * the body; of two holding as much, the first in document order. `counts` is the body's census (text-census.ts): its
 * elements are those counted under the body, read in its order (an element after its descendants), not walked again;
 * `mains`, when the census listed them (text-census.ts CensusLists), are the only ones read.
 */
export function mainRegion(body: Element, counts: ReadonlyMap<Element, TextCount>, mains?: readonly Element[]): Element {
  const total = counts.get(body)?.text ?? 0;
  let best: Element | undefined;
  let bestText = 0;
  for (const el of mains ?? counts.keys()) {
    if (el === body || (el.name !== 'main' && el.attribs.role !== 'main')) continue;
    const text = counts.get(el)!.text;
    // A descendant comes first in the census: an ancestor holding as much starts before it.
    if (text > bestText || (text === bestText && best !== undefined && contains(el, best))) {
      best = el;
      bestText = text;
    }
  }
  return best && bestText >= total * MAIN_MIN_SHARE ? best : body;
}

/** Whether `inner` is under `outer`. */
function contains(outer: Element, inner: Element): boolean {
  for (let p = inner.parent; p; p = p.parent) if (p === outer) return true;
  return false;
}

/**
 * What a region holds besides its content: site chrome (navigation, footers, cookie banners), asides and
 * dialogs, furniture readability would never score (sidebars, related links, share bars), and menus (blocks of
 * short links) unless a menu holds more text than all the region keeps besides (then it is the page's content:
 * a table of contents, an index). Returns the elements to leave out; their subtrees go with them. Elements in `keep` (the posts
 * of a thread, whatever their class names say) are walked but never left out themselves.
 */
export function regionFurniture(
  region: Element,
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
  keep: ReadonlySet<Element> = new Set(),
): Set<Element> {
  const removed = new Set<Element>();
  const menus: Element[] = [];
  // A grid's tiles are left in whatever each looks like alone (structure/item-grid.ts).
  const grid = new ItemGrid(counts);
  // A grid, a tile and everything in one: its parts are named for what they show on the tile (a date, a promo label).
  const inGrid = new Set<Element>();
  const isTile = (el: Element) => {
    if (!grid.isTile(el)) return false;
    inGrid.add(el);
    return true;
  };
  // A tile's title bar named like a page's header (structure/item-grid.ts): kept, and what it holds with it.
  const isTitleBar = (el: Element) => {
    if (!grid.isTitleBar(el)) return false;
    inGrid.add(el);
    return true;
  };
  const regionText = counts.get(region)?.text ?? 0;
  const maxControls = regionText * CONTROLS_MAX_SHARE;
  // Menus seen before the page's first <h1>: the site's own menus, above what the page is about.
  const aboveHeading = new Set<Element>();
  let headingSeen = false;
  walk(region, (el) => {
    if (el.name === 'h1' && counts.has(el) && !isSkipped(el)) headingSeen = true;
    const count = counts.get(el);
    const inTile = el.parent !== null && inGrid.has(el.parent as Element);
    if (inTile) inGrid.add(el);
    if (
      !count ||
      isSkipped(el) ||
      (!keep.has(el) &&
        ((isChrome(el) && !(chromeByName(el) && isPageWrapper(count, regionText))) ||
          (isExcluded(el, STRICT, notSkipped) &&
            !inTile &&
            !isPageWrapper(count, regionText) &&
            !isTile(el) &&
            !isTitleBar(el) &&
            !readsAsSection(el, counts)) ||
          (count.text <= maxControls && isControls(el, count.text))))
    ) {
      removed.add(el);
      return false;
    }
    if (!keep.has(el) && !inTile && isMenu(count) && !isTile(el)) {
      removed.add(el);
      menus.push(el);
      if (!headingSeen) aboveHeading.add(el);
      return false;
    }
    return true;
  });
  // A menu larger than everything else the region keeps is what the page is: a table of contents, an index;
  // not one above the page's <h1> (the site's own menu, its items rendered by a script or its lists long), nor,
  // on a page without an <h1>, one whose lists nest (a site's mega-menu: departments, their categories and
  // sub-categories; an index is one level of links, or is titled by an <h1>).
  let kept = counts.get(region)?.text ?? 0;
  for (const el of removed) kept -= counts.get(el)?.text ?? 0;
  for (const menu of menus) {
    const text = counts.get(menu)!.text;
    const siteMenu = headingSeen ? aboveHeading.has(menu) : listDepth(menu) >= MEGA_MENU_MIN_DEPTH;
    if (text > kept && !siteMenu) removed.delete(menu);
  }
  return removed;
}

/** How many lists nest inside one another at the deepest point under `root`. */
export function listDepth(root: Element): number {
  let deepest = 0;
  const stack: [Element, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [el, above] = stack.pop()!;
    const depth = el.name === 'ul' || el.name === 'ol' ? above + 1 : above;
    deepest = Math.max(deepest, depth);
    for (const child of el.children) if (isElement(child)) stack.push([child, depth]);
  }
  return deepest;
}

/** Site chrome, asides, dialogs and blocks whose role is furniture: what they are, whatever repeats. */
function isChrome(el: Element): boolean {
  if (isSiteChrome(el) || el.name === 'aside' || el.name === 'dialog') return true;
  const role = el.attribs.role;
  return role !== undefined && FURNITURE_ROLES.has(role);
}

/**
 * Chrome by its class or id alone (a `headerWrapper` section, a `nav-container`), not by its tag or role: such a
 * name, like readability's unlikely names, says where a block sits, and a block holding half the region is the
 * page's wrapper (structure/page-wrapper.ts).
 */
function chromeByName(el: Element): boolean {
  return !CHROME_TAGS.has(el.name) && el.attribs.role === undefined;
}

const CHROME_TAGS = new Set(['nav', 'footer', 'header', 'aside', 'dialog']);

/**
 * A block left out by its name alone (readability's unlikely names, not its tag or role) that is a section of the
 * page all the same, because it reads like one (structure/named-sections.ts).
 */
function readsAsSection(el: Element, counts: ReadonlyMap<Element, TextCount>): boolean {
  return !isExcluded(el, BY_TAG_AND_ROLE, notSkipped) && isNamedSection(el, counts);
}

/** For isExcluded, of an element the walk has found not skipped already. */
const notSkipped = () => false;

/** Words one of POSTER, BUTTON or CONTROLS needs: a class and an id holding none of them name no controls. */
const MAYBE_CONTROLS =
  /filter|facet|refine|sort|toolbar|breadcrumb|pag(?:ination|er|ing)|info|details|stats|profile|signature|btn|button|cta/i;

/** Form controls, and blocks named for what they do to a listing rather than what it holds. */
function isControls(el: Element, text: number): boolean {
  if (CONTROL_TAGS.has(el.name)) return true;
  if (text <= BUTTON_MAX_TEXT && el.attribs.role === 'button') return true;
  const { class: cls, id } = el.attribs;
  if (!(cls !== undefined && MAYBE_CONTROLS.test(cls)) && !(id !== undefined && MAYBE_CONTROLS.test(id))) return false;
  const names = `${cls ?? ''} ${id ?? ''}`.split(/\s+/);
  if (names.some((name) => POSTER.test(name))) return true;
  if (text <= BUTTON_MAX_TEXT && (el.attribs.role === 'button' || names.some((name) => BUTTON.test(name)))) return true;
  return names.some((name) => CONTROLS.test(name));
}

function isMenu(count: TextCount): boolean {
  return count.links >= MENU_MIN_LINKS && count.link >= count.text * MENU_LINK_SHARE && count.link / count.links <= MENU_MAX_LINK_TEXT;
}
