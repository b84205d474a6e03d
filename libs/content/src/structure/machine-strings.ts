import { isElement, textContent, textData, walk, type Document, type Element } from '../dom';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const UUID_LENGTH = 36;
const ONLY_UUID = /^\s*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\s*$/i;
/** Besides its identifiers, a label made of them holds at most this many characters (the letters spread between them). */
const LABEL_MAX_REST = 20;
/** Code shows identifiers as its text. */
const CODE = new Set(['pre', 'code', 'samp', 'kbd', 'textarea']);

/**
 * Machine identifiers drawn as text: an element whose whole text is a UUID, and a block made of them with a few
 * letters between (a label a page scrambles against copying, "Sponsored" spelled out between random ids a
 * stylesheet hides). A reader sees none of the ids; no content is a UUID alone (code excepted, which shows
 * identifiers as its text). Returns the elements to leave out: the block when all it holds besides the ids is a
 * few letters, else each id.
 */
export function machineStrings(document: Document): Set<Element> {
  const out = new Set<Element>();
  const parents = new Set<Element>();
  walk(document, (el) => {
    if (CODE.has(el.name) || el.name === 'script' || el.name === 'style') return false;
    // A UUID is 36 characters: a shorter text is none (most are; the pattern is not run on them).
    if (el.children.length === 1 && textData(el.children[0]).length >= UUID_LENGTH && ONLY_UUID.test(textContent(el))) {
      out.add(el);
      if (el.parent && isElement(el.parent)) parents.add(el.parent);
      return false;
    }
    return true;
  });
  for (const parent of parents) {
    const text = textContent(parent);
    const ids = text.match(UUID)?.length ?? 0;
    if (ids >= 2 && text.replace(UUID, '').replace(/\s+/g, '').length <= LABEL_MAX_REST) {
      for (const child of parent.children) if (isElement(child)) out.delete(child);
      out.add(parent);
    }
  }
  return out;
}
