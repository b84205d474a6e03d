import type { Element } from '../dom';

/**
 * `test` with its answer remembered per element: once the content is chosen, a dozen parts walk it (and the body)
 * asking the same question of every element (whether the caller's rule skips it: a chain of a dozen checks), and
 * the answer never changes while the page is read (the detection never mutates the DOM). `test` must be pure.
 */
export function rememberAnswers(test: (el: Element) => boolean): (el: Element) => boolean {
  const answers = new Map<Element, boolean>();
  return (el) => {
    let answer = answers.get(el);
    if (answer === undefined) {
      answer = test(el);
      answers.set(el, answer);
    }
    return answer;
  };
}
