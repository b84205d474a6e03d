import { isElement, visibleText, walk, type Document, type Element } from '../dom';
import { isHidden, UNRENDERED_TAGS } from '../visibility';
import { textCensus } from './text-census';

/** A list of questions holds at least this many... */
const MIN_PAIRS = 2;
/** An answer with more of its text in links than this is a menu a toggle opens, not an answer. */
const ANSWER_MAX_LINK_SHARE = 0.3;
/** A question is a line, not a paragraph. */
const QUESTION_MAX_TEXT = 200;

/**
 * The answers of a list of questions a script folds without ARIA (no `aria-controls` for collapsed-panels.ts to
 * follow): a question shown (a short block ending in "?") and, right after it, its answer hidden (the `hidden`
 * attribute, `aria-hidden="true"`, an inline `display:none`). Pairs come in a list: MIN_PAIRS or more under one
 * parent, each pair's question and answer side by side or in an item of their own. The reader opens each answer:
 * the page's text, folded. Answers mostly of links stay hidden; so does what an answer hides inside it.
 */
export function foldedAnswers(document: Document, isSkipped: (el: Element) => boolean): Set<Element> {
  const byList = new Map<Element, Element[]>();
  walk(document, (el) => {
    if (UNRENDERED_TAGS.has(el.name)) return false;
    if (!isHidden(el) || !isSkipped(el)) return true;
    const question = previousElement(el);
    if (!question || isHidden(question) || !asks(question)) return false;
    const pair = el.parent as Element;
    // The list: the pairs' common parent (a pair side by side in it) or, for a pair in an item of its own, the item's.
    const list = pair.children.filter(isElement).length <= 3 && pair.parent && isElement(pair.parent) ? pair.parent : pair;
    const answers = byList.get(list) ?? [];
    answers.push(el);
    byList.set(list, answers);
    return false;
  });
  const shown = new Set<Element>();
  for (const answers of byList.values()) {
    if (answers.length < MIN_PAIRS) continue;
    for (const answer of answers) {
      const count = textCensus(answer, (child) => child !== answer && isSkipped(child)).get(answer);
      if (count && count.text > 0 && count.link <= count.text * ANSWER_MAX_LINK_SHARE) shown.add(answer);
    }
  }
  return shown;
}

function previousElement(el: Element): Element | undefined {
  for (let node = el.prev; node; node = node.prev) if (isElement(node) && !UNRENDERED_TAGS.has(node.name)) return node;
  return undefined;
}

function asks(el: Element): boolean {
  const text = visibleText(el, QUESTION_MAX_TEXT + 1);
  return text.length > 0 && text.length <= QUESTION_MAX_TEXT && text.endsWith('?');
}
