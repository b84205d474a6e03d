import { walk, type Element } from '../dom';
import type { TextCount } from './text-census';

/**
 * A section of a page that a furniture name alone would leave out. Company, landing and service pages build
 * their content from component blocks whose class names come from the site builder, not from what they hold:
 * a `promo-container` that holds the page's body, a `teaser` section, a testimonial `carousel`, a hero
 * `banner`, a `faq_tabs-menu`, a layout's `sidebar-left` modifier. Such a block is still a section of the page
 * when it reads like one: a heading (an `h1`-`h6`, or `role="heading"`) and prose, little of it in links, more than a caption's worth.
 *
 * Names that say the block is about something besides the page (comments, its author, what else to read,
 * a newsletter, sharing, sponsors, consent) keep their block out whatever it holds.
 */
export function isNamedSection(el: Element, counts: ReadonlyMap<Element, TextCount>): boolean {
  const count = counts.get(el);
  if (!count || count.text < SECTION_MIN_TEXT || count.link > count.text * SECTION_MAX_LINK_SHARE) return false;
  if (ASIDE_NAMES.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`)) return false;
  let headings = 0;
  let paragraphs = 0;
  walk(el, (child) => {
    if (!counts.has(child)) return false;
    // A heading element, or an element marked as one for assistive technology (`role="heading"`).
    if (HEADINGS.has(child.name) || child.attribs.role === 'heading') headings++;
    else if (child.name === 'p' && (counts.get(child)?.text ?? 0) >= PARAGRAPH_MIN_TEXT) paragraphs++;
    return true;
  });
  return headings >= 1 && paragraphs >= 1;
}

/** Less text than this (characters) is a caption, a badge or a call to action, not a section. */
const SECTION_MIN_TEXT = 200;
/** A block with more of its text in links than this is a list of links (related posts, a menu), not a section. */
const SECTION_MAX_LINK_SHARE = 0.3;
/** A paragraph of prose, not a label. */
const PARAGRAPH_MIN_TEXT = 40;
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** What sits beside a page's content whatever it holds: comments, author boxes, reading suggestions, sign-ups, sharing, sponsors, consent. */
const ASIDE_NAMES =
  /comment|disqus|replies|remark|shoutbox|author|byline|related|recommend|more-?stories|read-?more|newsletter|subscribe|signup|sign-up|share|social|sponsor|-ad-|advert|gdpr|cookie|consent|popup|modal|agegate/i;
