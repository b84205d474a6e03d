import { typeOf, walk, type AnyNode, type Element } from '../dom';

/** Class or id that names a poster's signature block (`signature`, `post-signature`, `signaturecontainer`). */
const SIGNATURE_NAME = /(?:^|[\s_-]|post|user|message)signature(?:$|[\s_-]|container|content|view)/i;
/** What every name SIGNATURE_NAME reads holds. */
const SIGNATURE = /signature/i;
/** A signature is a line or a few; a longer block named so is something else (a letter's signature section...). */
const MAX_TEXT = 600;

/**
 * A post's signature (the poster's standing lines under every post: a motto, links, their gear) is not the post:
 * a block named a signature, short (MAX_TEXT characters at most), is left out of the content (`roots`).
 */
export function postSignatures(roots: readonly AnyNode[], isSkipped: (el: Element) => boolean): Set<Element> {
  const out = new Set<Element>();
  for (const root of roots) {
    walk(root, (el) => {
      if (isSkipped(el)) return false;
      // Most elements have no name that says "signature" at all: the whole rule is read only for those that do.
      const { class: cls, id } = el.attribs;
      if (!((cls !== undefined && SIGNATURE.test(cls)) || (id !== undefined && SIGNATURE.test(id)))) return true;
      if (SIGNATURE_NAME.test(`${cls ?? ''} ${id ?? ''}`) && textLength(el) <= MAX_TEXT) {
        out.add(el);
        return false;
      }
      return true;
    });
  }
  return out;
}

function textLength(el: Element): number {
  let n = 0;
  const stack: AnyNode[] = [el];
  while (stack.length > 0 && n <= MAX_TEXT) {
    const node = stack.pop()!;
    if (typeOf(node) === 'text') n += (node as { data: string }).data.trim().length;
    const children = (node as { children?: AnyNode[] }).children;
    if (children) stack.push(...children);
  }
  return n;
}
