import { visibleLength, type Element } from './dom';

const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search', 'menubar']);

/** ids/classes that name navigation or footer blocks outright (whole tokens, not substrings). */
const CHROME_NAME =
  /^(?:(?:page|site|global|main|top|primary|secondary|quick|sub|utility|mega|mobile)[-_]?)?(?:nav|navbar|navigation|menu|menubar|header|footer|masthead|breadcrumbs?)(?:[-_]?(?:wrap|wrapper|container|inner|bar|links|menu|nav))?$|^skip-?links?$/i;

/** Social share widgets: a row of share links whose URLs embed the whole page URL and title. */
const SHARE_NAME =
  /^(?:social[-_]?)?(?:share|sharing|sharethis|addthis)(?:[-_]?(?:this|bar|buttons?|links|tools|box|widget|icons))?$|^addthis_/i;

/** Links whose whole text is a UI action, not information (full mode drops them). */
const ACTION_TEXT =
  /^(?:add to (?:cart|bag|basket|wish ?list|registry|favou?rites)|buy now|checkout|check out|sign in|log ?in|sign up|register|create an account|my account|share(?: this(?: page)?)?!?|e-?mail (?:this )?to a friend|email this|print(?: this page)?|write a review|join now!?|skip to (?:main )?content|back to top|close)$/i;

const SHARE_HOST =
  /^(?:www\.)?(?:facebook\.com\/sharer|twitter\.com\/(?:home\?status|intent|share)|x\.com\/intent|pinterest\.com\/pin\/create|linkedin\.com\/share|reddit\.com\/submit|delicious\.com\/save|digg\.com\/submit|myspace\.com\/index\.cfm\?fuseaction=postto|addthis\.com|api\.addthis\.com|plus\.google\.com\/share|tumblr\.com\/share|wa\.me|api\.whatsapp\.com\/send|t\.me\/share)/i;

/** A share-service URL (facebook sharer, tweet intents, addthis, ...). */
export function isShareUrl(url: URL): boolean {
  return SHARE_HOST.test(url.href.replace(/^https?:\/\//, ''));
}

export function isActionText(text: string): boolean {
  return text.length <= 40 && ACTION_TEXT.test(text);
}

/**
 * A consent tool's own names, or a name that says what a cookie notice is (`cookie-consent`, `cookie_banner`,
 * `consent-manager`): a banner whatever it holds (a preference centre describes every kind of cookie).
 */
const COOKIE_VENDOR_NAME =
  /gdpr|cc-banner|cc-window|onetrust|truste|cookiebot|cookies?[-_]?(?:consent|banner|notice|bar|popup|modal|dialog|settings|preferences|law)|consent[-_]?(?:banner|manager|modal|dialog|popup|tool)/i;
/** Words a cookie notice is named by, also part of other names (`module-http.cookies`, `cookie-recipes`)... */
const COOKIE_WORD_NAME = /cookie|consent/i;
/** ...so such a name marks a banner only when the element holds less text than this: a notice, not the page. */
const COOKIE_NOTICE_MAX_TEXT = 2000;

/** Whether `name` (an id or a class attribute) names `el` a cookie or consent banner. */
function namesCookieBanner(name: string, el: Element): boolean {
  if (COOKIE_VENDOR_NAME.test(name)) return true;
  // visibleText stops after so many characters before collapsing white space: read enough to see past the bound.
  return COOKIE_WORD_NAME.test(name) && visibleLength(el, 4 * COOKIE_NOTICE_MAX_TEXT) < COOKIE_NOTICE_MAX_TEXT;
}

/** Cheap pre-check: an id/class without any of these words cannot match the patterns above. */
const MAYBE_CHROME = /nav|menu|header|footer|masthead|breadcrumb|skip|shar|addthis|cookie|consent|gdpr|cc-|onetrust|truste/i;

/**
 * Site chrome that `full` mode drops: navigation, footers, page headers outside articles, cookie
 * banners. Deliberately narrow: product values sometimes live in odd containers, so only
 * elements that say what they are (tag, role, or an exact chrome id/class) qualify. (The analysis
 * lib's `mapChrome` is broad on purpose: it steers heuristics and drops nothing.)
 */
export function isSiteChrome(el: Element): boolean {
  if (isChromeLandmark(el)) return true;
  const id = el.attribs.id;
  if (id !== undefined && MAYBE_CHROME.test(id) && (CHROME_NAME.test(id) || SHARE_NAME.test(id) || namesCookieBanner(id, el))) return true;
  const cls = el.attribs.class;
  if (cls !== undefined && MAYBE_CHROME.test(cls)) {
    if (namesCookieBanner(cls, el)) return true;
    for (const token of cls.split(/\s+/)) if (CHROME_NAME.test(token) || SHARE_NAME.test(token)) return true;
  }
  return false;
}

/**
 * Chrome by what the markup says it is, not by a name: `<nav>`, `<footer>`, a `<header>` outside articles and a
 * navigation, banner, footer, search or menu bar role.
 */
export function isChromeLandmark(el: Element): boolean {
  const name = el.name;
  if (name === 'nav' || name === 'footer') return true;
  if (name === 'header' && !insideContent(el)) return true;
  const role = el.attribs.role;
  return role !== undefined && CHROME_ROLES.has(role.toLowerCase());
}

/**
 * A cookie or consent banner, by its id or class: a consent tool's name, or a name saying cookie or consent on an
 * element holding less than COOKIE_NOTICE_MAX_TEXT characters (a section about `http.cookies` is no banner).
 */
export function isCookieBanner(el: Element): boolean {
  const id = el.attribs.id;
  const cls = el.attribs.class;
  return (id !== undefined && namesCookieBanner(id, el)) || (cls !== undefined && namesCookieBanner(cls, el));
}

/** A `<header>` inside an article or main element is the article's own header (title, byline). */
function insideContent(el: Element): boolean {
  for (let p = el.parent; p; p = p.parent) {
    const tag = (p as Element).name;
    if (tag === 'article' || tag === 'main' || tag === 'section') return true;
  }
  return false;
}
