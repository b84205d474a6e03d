import { appendChild, removeElement } from 'domutils';
import { findFirst, isElement, textData, typeOf, type AnyNode, type Document } from '../dom';

/**
 * Content a page writes after its `</body>` or `</html>` (a template that closes the document twice): a browser
 * puts it at the end of the body (the HTML parser's "after body" mode), while the parser here leaves it beside
 * `<html>`, where nothing that reads the body finds it. Elements and text after the `<html>` element are moved
 * into the body, in order.
 */
export function adoptContentAfterBody(document: Document): void {
  const html = document.children.findIndex((c) => isElement(c) && c.name === 'html');
  if (html < 0 || html === document.children.length - 1) return;
  const stray = document.children.slice(html + 1).filter((c: AnyNode) => isElement(c) || (typeOf(c) === 'text' && /\S/.test(textData(c))));
  if (stray.length === 0) return;
  const body = findFirst(document.children[html], 'body');
  if (!body) return;
  for (const node of stray) {
    removeElement(node);
    appendChild(body, node);
  }
}
