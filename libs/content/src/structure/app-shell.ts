import { isElement, textData, type Element, typeOf } from '../dom';
import { normalizedLength } from '../readability/text-measure';

/** Below this much text outside `<noscript>`, a body is a shell the page's scripts would fill. */
const SHELL_MAX_TEXT = 1_000;

/**
 * An app shell: a body whose rendered text is a loading screen while its server-rendered content sits in
 * `<noscript>` (forum and shop front ends write their crawler view there). A reader without scripts, and the
 * page's own fallback, show that content: the main content is read from it. True when the text inside
 * `<noscript>` is larger than the shell's own and the shell's is short.
 */
export function isAppShell(body: Element, isSkipped: (el: Element) => boolean): boolean {
  let outside = 0;
  let inside = 0;
  const stack: { el: Element; inNoscript: boolean }[] = [{ el: body, inNoscript: false }];
  while (stack.length > 0) {
    const { el, inNoscript } = stack.pop()!;
    for (const child of el.children) {
      if (typeOf(child) === 'text') {
        const length = normalizedLength(textData(child));
        if (inNoscript) inside += length;
        else outside += length;
      } else if (isElement(child)) {
        if (child.name === 'noscript') stack.push({ el: child, inNoscript: true });
        else if (!isSkipped(child)) stack.push({ el: child, inNoscript });
      }
    }
    if (outside > SHELL_MAX_TEXT) return false;
  }
  return inside > outside;
}
