import { isElement, typeOf, visibleText, walk, type AnyNode, type Element } from '../dom';

/** A quote shorter than this (characters) is a reply's point of reference, kept whatever it repeats. */
const QUOTE_MIN_TEXT = 120;
/** Words per shingle compared. */
const SHINGLE = 6;
/** A quote whose words were this share shown above it (in runs of SHINGLE words) is a copy. */
const MIN_REPEATED = 0.8;

/**
 * A reply in a thread that quotes a whole earlier post repeats it: a `<blockquote>` of QUOTE_MIN_TEXT characters
 * or more whose text the content already showed above it, nearly word for word (MIN_REPEATED of its words, in runs
 * of SHINGLE words), is left out, the post it quotes stays. A short quote (a line answered) stays, and so does a
 * quote of text that is not on the page (an article quoting its source). Read in document order over `roots`,
 * without what `isSkipped` leaves out.
 */
export function quotedCopies(roots: readonly AnyNode[], isSkipped: (el: Element) => boolean): Set<Element> {
  const copies = new Set<Element>();
  // Most pages quote nothing, or only lines shorter than QUOTE_MIN_TEXT: their words are not read at all. Past the
  // last long quote no word is read either (when no root holds another, which would read its quotes twice).
  const long = longQuotes(roots);
  if (long.size === 0) return copies;
  let unread = nested(roots) ? Infinity : long.size;
  // Only a run of words a long quote holds can be one of its runs: a run is remembered only when its words all are.
  const vocabulary = new Set<string>();
  for (const text of long.values()) for (const word of wordsOf(text)) vocabulary.add(word);
  const seen = new Set<string>();
  const recent: string[] = [];
  // How many of the last words read (since `recent` was last emptied) the quotes hold, one after another.
  let known = 0;
  const read = (text: string) => {
    for (const word of wordsOf(text)) {
      recent.push(word);
      if (recent.length > SHINGLE) recent.shift();
      known = vocabulary.has(word) ? known + 1 : 0;
      if (recent.length === SHINGLE && known >= SHINGLE) seen.add(recent.join(' '));
    }
  };
  const stack: AnyNode[] = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeOf(node) === 'text') {
      read((node as { data: string }).data);
      continue;
    }
    if (!isElement(node)) continue;
    if (isSkipped(node)) continue;
    const text = long.get(node);
    if (text !== undefined) {
      if (isRepeated(text, seen)) copies.add(node);
      if (--unread === 0) break;
      if (copies.has(node)) continue;
    }
    // Words of two blocks do not run together.
    recent.length = 0;
    known = 0;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return copies;
}

/** The quotes under `roots` (themselves included) of QUOTE_MIN_TEXT characters or more, with their text. */
function longQuotes(roots: readonly AnyNode[]): Map<Element, string> {
  const long = new Map<Element, string>();
  const add = (el: Element): void => {
    if (el.name !== 'blockquote') return;
    const text = visibleText(el);
    if (text.length >= QUOTE_MIN_TEXT) long.set(el, text);
  };
  for (const root of roots) {
    if (isElement(root)) add(root);
    walk(root, (el) => {
      add(el);
      return true;
    });
  }
  return long;
}

/** Whether a root lies under another (or is given twice). */
function nested(roots: readonly AnyNode[]): boolean {
  const rootSet = new Set(roots);
  if (rootSet.size !== roots.length) return true;
  return roots.some((root) => {
    for (let node = root.parent; node; node = node.parent) if (rootSet.has(node)) return true;
    return false;
  });
}

/** The words of a text, lower-cased. */
function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

const WORD = /[\p{L}\p{N}_]+/gu;

function isRepeated(text: string, seen: ReadonlySet<string>): boolean {
  if (text.length < QUOTE_MIN_TEXT || seen.size === 0) return false;
  const words = wordsOf(text);
  // The words inside a run shown above: the quote's own words (who said it, "Click to expand...") are not.
  const covered = new Array<boolean>(words.length).fill(false);
  for (let i = 0; i + SHINGLE <= words.length; i++) {
    if (seen.has(words.slice(i, i + SHINGLE).join(' '))) covered.fill(true, i, i + SHINGLE);
  }
  return words.length >= SHINGLE && covered.filter(Boolean).length >= MIN_REPEATED * words.length;
}
