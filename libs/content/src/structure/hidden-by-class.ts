import type { Element } from '../dom';

/**
 * Class names that hide an element in the common CSS frameworks (Foundation's `hide`, Bootstrap's `d-none` and
 * `invisible`, Bulma's `is-hidden`). Not `hidden`: Tailwind pages mark collapsed accordion answers with it, and
 * those are content; nor the screen-reader-only classes (product names in a grid sit in them).
 */
const HIDING = new Set(['hide', 'd-none', 'is-hidden', 'invisible']);
/** A class that shows the element again from some screen width on (`hidden md:block`, `d-none d-lg-flex`). */
const SHOWN_FROM =
  /^(?:(?:sm|md|lg|xl|2xl):(?:block|flex|grid|inline|inline-block|inline-flex|table|contents)|d-(?:sm|md|lg|xl|xxl)-(?:block|flex|grid|inline|inline-block|inline-flex|table))$/;

/**
 * Hidden by a class a framework's stylesheet hides, unless another class shows it on a wider screen. The main content leaves such
 * elements out: a page's duplicate mobile blocks, collapsed variants and screen-reader labels are not what a
 * reader sees. (The full conversion keeps them: values sometimes live there.)
 */
export function isHiddenByClass(el: Element): boolean {
  const cls = el.attribs.class;
  if (cls === undefined || cls.length < 4) return false;
  // Most class attributes hold none of the hiding names, even as a part: answered without a look-up (hashing each
  // element's class attribute for the look-up costs more than reading it through).
  if (!cls.includes('hid') && !cls.includes('d-none') && !cls.includes('invisible')) return false;
  let verdict = verdicts.get(cls);
  if (verdict === undefined) {
    const names = cls.split(/\s+/);
    verdict = names.some((n) => HIDING.has(n)) && !names.some((n) => SHOWN_FROM.test(n));
    if (verdicts.size >= VERDICTS_MAX) verdicts.clear();
    verdicts.set(cls, verdict);
  }
  return verdict;
}

/**
 * The verdict on each class attribute seen: a page repeats a few hundred of them over thousands of elements, and
 * every pass of the main content asks. Bounded, as the content threads live long.
 */
const verdicts = new Map<string, boolean>();
const VERDICTS_MAX = 10_000;
