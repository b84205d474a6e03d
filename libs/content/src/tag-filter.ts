import { selectAll } from 'css-select';
import type { AnyNode, Document, Element } from 'domhandler';
import { childElements } from './dom';

/**
 * CSS selectors that shape a page's content (`include_tags`, `exclude_tags`; Firecrawl's `includeTags`,
 * `excludeTags`): `include` keeps only the matched elements (in document order, an element inside another match
 * once), `exclude` leaves the matched elements and everything inside them out. Both shape the content formats
 * (markdown, text, html) and what the model reads; links, metadata and the attribute values are the whole page's.
 */
export interface TagFilter {
  include?: string[];
  exclude?: string[];
}

export interface TagSelection {
  /** The elements to render instead of the page's own roots, or null (no `include`). */
  roots: Element[] | null;
  /** Elements left out, each with its subtree. */
  excluded: ReadonlySet<Element>;
}

/** The elements a filter picks and leaves out of a parsed page (selectors checked at intake). */
export function selectTags(document: Document, filter: TagFilter | undefined): TagSelection {
  const excluded = new Set<Element>();
  for (const selector of filter?.exclude ?? []) for (const el of selectAll<AnyNode, Element>(selector, document)) excluded.add(el);
  if (!filter?.include || filter.include.length === 0) return { roots: null, excluded };
  const matched = new Set<Element>();
  for (const selector of filter.include) for (const el of selectAll<AnyNode, Element>(selector, document)) matched.add(el);
  // Top-most matches only, in document order (selectAll answers per selector, so several selectors interleave).
  const roots: Element[] = [];
  const visit = (node: AnyNode): void => {
    for (const el of childElements(node)) {
      if (matched.has(el)) roots.push(el);
      else visit(el);
    }
  };
  visit(document);
  return { roots, excluded };
}
