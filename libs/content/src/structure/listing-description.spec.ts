import { findFirst, parseHtml, type Element } from '../dom';
import { isListingDescription } from './listing-description';

const byId = (html: string, id: string): Element => {
  const doc = parseHtml(html);
  let found: Element | undefined;
  const visit = (el: Element) => {
    if (el.attribs.id === id) found = el;
    for (const child of el.children) if ('attribs' in child) visit(child);
  };
  visit(findFirst(doc, 'body')!);
  return found!;
};

describe("listing description: the text above a category's items is no article", () => {
  it("reads a category's, archive's or term's description block as one, also from its wrapper's name", () => {
    expect(isListingDescription(byId('<body><div class="custom-archive-description" id="d"><p>Recipes.</p></div></body>', 'd'))).toBe(true);
    expect(isListingDescription(byId('<body><div class="cat-desc col-span-8"><div id="d"><p>Recipes.</p></div></div></body>', 'd'))).toBe(
      true,
    );
    expect(isListingDescription(byId('<body><section class="term-description" id="d"><p>Shoes.</p></section></body>', 'd'))).toBe(true);
  });

  it("does not read an article's body or a consent dialog's category description as one", () => {
    expect(isListingDescription(byId('<body><div class="entry-content" id="d"><p>Story.</p></div></body>', 'd'))).toBe(false);
    expect(isListingDescription(byId('<body><p class="ot-category-desc" id="d">Cookies.</p></body>', 'd'))).toBe(false);
    expect(isListingDescription(byId('<body><div class="description" id="d"><p>A product.</p></div></body>', 'd'))).toBe(false);
  });
});
