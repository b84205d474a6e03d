import { findFirst, isElement, typeOf, visibleText, type AnyNode, type Element } from '../dom';

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
  // Most pages quote nothing: their words are not read at all.
  const quotes = (root: AnyNode) => (isElement(root) && root.name === 'blockquote') || findFirst(root, 'blockquote') !== undefined;
  if (!roots.some(quotes)) return copies;
  const seen = new Set<string>();
  const recent: string[] = [];
  const read = (text: string) => {
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
      recent.push(word);
      if (recent.length > SHINGLE) recent.shift();
      if (recent.length === SHINGLE) seen.add(recent.join(' '));
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
    if (node.name === 'blockquote' && isRepeated(visibleText(node), seen)) {
      copies.add(node);
      continue;
    }
    // Words of two blocks do not run together.
    recent.length = 0;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return copies;
}

function isRepeated(text: string, seen: ReadonlySet<string>): boolean {
  if (text.length < QUOTE_MIN_TEXT || seen.size === 0) return false;
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  // The words inside a run shown above: the quote's own words (who said it, "Click to expand...") are not.
  const covered = new Array<boolean>(words.length).fill(false);
  for (let i = 0; i + SHINGLE <= words.length; i++) {
    if (seen.has(words.slice(i, i + SHINGLE).join(' '))) covered.fill(true, i, i + SHINGLE);
  }
  return words.length >= SHINGLE && covered.filter(Boolean).length >= MIN_REPEATED * words.length;
}
