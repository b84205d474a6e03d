import type { AnyNode, Document, Element } from 'domhandler';
import { prepend, removeElement } from 'domutils';
import { includesByTail, textData, walk } from '../dom';

/**
 * Streamed async fragments (Marko's `<await>`, as eBay ships it): a page is sent with a placeholder where a slow
 * part goes (`<span id="afph3">` or `<noscript id="afph3">`, under a prefix the page names) and the part follows
 * later in the same document inside a hidden `<div id="af3" style="display:none">`, with a small script,
 * `$af(3)`, that moves the holder's children to the placeholder. A browser shows the page after those scripts
 * ran; a reader without scripts sees the page's title and sections hidden at the end. The document is rearranged
 * as the script would: every holder whose placeholder of the same number is there fills it.
 */
export function resolveAsyncFragments(document: Document, html: string): void {
  if (!includesByTail(html, 'ph"', '+')) return;
  const prefixes = new Set<string>();
  const ids = new Map<string, Element>();
  walk(document, (el) => {
    if (el.name === 'script') {
      const source = el.children.map(textData).join('');
      for (const m of source.matchAll(RUNTIME)) prefixes.add(m[1]);
      return false;
    }
    if (el.attribs.id !== undefined) ids.set(el.attribs.id, el);
    return true;
  });
  for (const prefix of prefixes) {
    for (const [id, holder] of ids) {
      const n = id.startsWith(prefix) ? id.slice(prefix.length) : '';
      if (!/^\d+$/.test(n)) continue;
      const placeholder = ids.get(`${prefix}ph${n}`);
      if (!placeholder?.parent || isInside(placeholder, holder)) continue;
      for (const child of [...holder.children]) {
        removeElement(child);
        prepend(placeholder, child);
      }
      removeElement(placeholder);
      removeElement(holder);
    }
  }
}

/** The runtime's two look-ups: `getElementById("af"+d)` for the holder, `getElementById("afph"+d)` for the placeholder. */
const RUNTIME = /getElementById\(\s*["'](\w+)["']\s*\+\s*\w+\s*\)[^]{0,200}?getElementById\(\s*["']\1ph["']\s*\+/g;

function isInside(el: Element, ancestor: Element): boolean {
  for (let node: AnyNode | null = el; node; node = node.parent) if (node === ancestor) return true;
  return false;
}
