import { isElement, type AnyNode, type Element } from '@app/content';
import { type PageDom } from './dom';

const CHROME_TAGS = new Set(['nav', 'header', 'footer', 'aside', 'menu']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'menu', 'menubar', 'complementary', 'search']);
// Class/id words of site chrome; matched as whole dash/underscore-separated words ("header-box", "site_nav").
const CHROME_WORDS =
  /(?:^|[-_\s])(nav|navbar|navigation|menu|menubar|breadcrumbs?|footer|header|masthead|sidebar|topbar|pager|pagination|social|share|sharing|cookie|cookies|skip|toolbar)(?:[-_\s]|$)/i;
const MAIN_WORDS = /(?:^|[-_\s])(main|content|primary|results|listing)(?:[-_\s]|$)/i;

/** A chrome root that holds most of the page is a wrapper with an unlucky name, not chrome. */
const MAX_CHROME_SHARE = 0.5;

/**
 * Which elements sit in site chrome (nav/header/footer/menus) and which in the main content area.
 * Deliberately not the content lib's `isSiteChrome`: that one decides what conversion drops, where a
 * false positive loses a page's data, so it takes only exact names; this map only steers heuristics
 * (which links are navigation, where the listing is), so it takes broad names and bounds them by text share.
 */
export interface ChromeMap {
  inChrome(el: Element): boolean;
  inMain(el: Element): boolean;
}

export function mapChrome(dom: PageDom): ChromeMap {
  const chrome = new Set<Element>();
  const main = new Set<Element>();
  const stack: Array<{ node: AnyNode; c: boolean; m: boolean; article: boolean }> = [{ node: dom.doc, c: false, m: false, article: false }];
  while (stack.length > 0) {
    const { node, c, m, article } = stack.pop()!;
    let isC = c;
    let isM = m;
    let inArticle = article;
    if (isElement(node)) {
      if (!isC && !inArticle && isChromeRoot(node, dom)) isC = true;
      if (!isM && isMainRoot(node)) isM = true;
      if (node.name === 'article') inArticle = true;
      if (isC) chrome.add(node);
      if (isM) main.add(node);
    }
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], c: isC, m: isM, article: inArticle });
  }
  return { inChrome: (el) => chrome.has(el), inMain: (el) => main.has(el) };
}

function isChromeRoot(el: Element, dom: PageDom): boolean {
  const role = (el.attribs.role ?? '').toLowerCase();
  const named = CHROME_TAGS.has(el.name) || CHROME_ROLES.has(role) || CHROME_WORDS.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`);
  if (!named) return false;
  return dom.totalText === 0 || (dom.textLen.get(el) ?? 0) / dom.totalText <= MAX_CHROME_SHARE;
}

function isMainRoot(el: Element): boolean {
  if (el.name === 'main' || (el.attribs.role ?? '').toLowerCase() === 'main') return true;
  return MAIN_WORDS.test(el.attribs.id ?? '');
}
