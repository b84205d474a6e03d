import { isElement, textData, typeOf, type AnyNode, type Element } from '../dom';
import { isChromeLandmark, isCookieBanner } from '../site-chrome';

const HAS_WORD = /[\p{L}\p{N}]/u;

/** A request to turn on JavaScript: what a script-rendered page shows a reader without scripts. */
const JS_NOTICE =
  /\b(?:enable|turn on|activate|switch on|allow)\s+(?:your\s+)?javascript\b|\bjavascript\s+(?:is\s+)?(?:required|disabled|turned off|must be (?:enabled|turned on)|needs to be (?:enabled|turned on))|\b(?:requires?|needs?)\s+javascript\b/i;
/** Longer than this, a `<noscript>` holds more than the notice (a crawler view of the page). */
const NOTICE_MAX_TEXT = 300;

/** A link that skips to the content or past the navigation: the page's chrome for keyboard readers. */
const SKIP_LINK = /^\s*skip\b/i;

/**
 * What never is a page's main content: chrome the markup declares (`<nav>`, `<footer>`, a page's `<header>`, their
 * roles), a cookie banner, a `<noscript>` that only asks for JavaScript, and a skip link. Not a block whose class
 * merely says header or menu: pages wrap their content in a `page-header` or a `#Header` too.
 */
export function isPageChrome(el: Element): boolean {
  if (isChromeLandmark(el) || isCookieBanner(el)) return true;
  if (el.name === 'noscript') {
    const text = plainText(el);
    return text.length <= NOTICE_MAX_TEXT && JS_NOTICE.test(text);
  }
  return el.name === 'a' && (el.attribs.href ?? '').startsWith('#') && SKIP_LINK.test(plainText(el));
}

/**
 * Whether the content `roots` show (without what `skip` leaves out) has a word outside the page's chrome
 * (`isPageChrome`): its text or an image's alt text. A root inside chrome shows only chrome. Stops at the first
 * word: on a page with content it reads a few nodes.
 */
export function hasWordBesideChrome(roots: readonly AnyNode[], skip: (el: Element) => boolean): boolean {
  let found = false;
  for (const root of roots) {
    if (isElement(root) && insideChrome(root)) continue;
    const visit = (node: AnyNode): boolean => {
      if (found) return false;
      if (typeOf(node) === 'text') {
        if (HAS_WORD.test(textData(node))) found = true;
        return false;
      }
      if (!isElement(node)) return node === root;
      if (node !== root && (skip(node) || isPageChrome(node))) return false;
      if (node.name === 'img' && HAS_WORD.test(node.attribs.alt ?? '')) found = true;
      return !found;
    };
    walkNodes(root, visit);
    if (found) return true;
  }
  return false;
}

/**
 * Whether the content `roots` show (without what `skip` leaves out) has words outside the page's chrome: a walk
 * that stops at the first word, then, when it finds none, the renderer's answer (`render`, as text) without the
 * chrome, which has the last word.
 */
export function shownBesideChrome(
  roots: readonly AnyNode[],
  skip: (el: Element) => boolean,
  render: (roots: AnyNode[], skip: (el: Element) => boolean) => string,
): boolean {
  if (hasWordBesideChrome(roots, skip)) return true;
  return HAS_WORD.test(render(rootsBesideChrome(roots), (el) => skip(el) || isPageChrome(el)));
}

/** Shorter than this (characters), a description is a tagline ("Smarter Shopping, Better Living! Shop.com"), not a cut. */
const EXCERPT_MIN_TEXT = 100;

/**
 * Whether a page description is a cut of the page's own text (a post's first lines, ended by an ellipsis or in
 * the middle of a sentence), as a forum writes for a topic whose posts its scripts draw: the start of the main
 * content. A description that ends its sentence, or a short one, is a summary written for search results, about the page.
 */
export function isExcerpt(description: string): boolean {
  const text = description.trim();
  if (text.length < EXCERPT_MIN_TEXT) return false;
  return /(?:…|\.\.\.|&hellip;?)$/.test(text) || !/[.!?:;)"'”’»]$/.test(text);
}

/** The roots that are not inside the page's chrome. */
export function rootsBesideChrome(roots: readonly AnyNode[]): AnyNode[] {
  return roots.filter((root) => !isElement(root) || !insideChrome(root));
}

function insideChrome(el: Element): boolean {
  for (let node: Element | null = el; node && isElement(node); node = node.parent as Element | null) {
    if (node.name === 'body') return false;
    if (isPageChrome(node)) return true;
  }
  return false;
}

function plainText(el: Element): string {
  let text = '';
  walkNodes(el, (node) => {
    if (typeOf(node) === 'text') text += textData(node);
    return text.length <= NOTICE_MAX_TEXT;
  });
  return text.replace(/\s+/g, ' ').trim();
}

/** Depth-first over `root` and its descendants; `visit` returning false skips a node's children. */
function walkNodes(root: AnyNode, visit: (node: AnyNode) => boolean): void {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const children = (node as { children?: AnyNode[] }).children;
    if (visit(node) && children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}
