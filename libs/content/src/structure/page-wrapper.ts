import type { TextCount } from './text-census';

/** A block holding this share of its region's text... */
const WRAPPER_MIN_SHARE = 0.5;
/** ...mostly outside links, and this much text (characters: a page's content, not a fragment's two blocks). */
const WRAPPER_MIN_TEXT = 500;
/** ...less than this share of it in links... */
const WRAPPER_MAX_LINK_SHARE = 0.5;

/**
 * A block named like furniture (an off-canvas menu's `menu-side-transition` wrapper, a `header-offset` or
 * `sidebar-layout` container) that holds WRAPPER_MIN_SHARE of its region's text, at least WRAPPER_MIN_TEXT
 * characters, less than WRAPPER_MAX_LINK_SHARE of it in links, is the page's wrapper, not furniture: names say
 * where a block sits in the layout; half the page is not a part beside it. (A menu holding half the page is still
 * a menu: its text is links.)
 */
export function isPageWrapper(count: TextCount, regionText: number): boolean {
  return count.text >= WRAPPER_MIN_TEXT && count.text >= WRAPPER_MIN_SHARE * regionText && count.link < WRAPPER_MAX_LINK_SHARE * count.text;
}
