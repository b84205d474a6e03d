import type { PageMetadata } from '../types';

/** What a page says it is, in schema.org JSON-LD or `og:type`. */
export type DeclaredKind = 'article' | 'product' | 'discussion' | 'collection';

const KINDS: [RegExp, DeclaredKind][] = [
  [/^(?:discussionforumposting|qapage|question|socialmediaposting)$/, 'discussion'],
  [/^(?:product|productgroup|individualproduct|productmodel|softwareapplication|book)$/, 'product'],
  [/^(?:itemlist|collectionpage|searchresultspage|offercatalog)$/, 'collection'],
  [
    /^(?:article|newsarticle|blogposting|reportagenewsarticle|analysisnewsarticle|opinionnewsarticle|backgroundnewsarticle|reviewnewsarticle|techarticle|scholarlyarticle|report|liveblogposting)$/,
    'article',
  ],
];

/**
 * The kinds a page declares: the schema.org types of its JSON-LD (top level, `@graph`, `mainEntity`) and its
 * `og:type`. Declarations are the site's own words about the page, true across sites and themes.
 */
export function declaredKinds(metadata: Pick<PageMetadata, 'jsonLd' | 'openGraph'>): Set<DeclaredKind> {
  const kinds = new Set<DeclaredKind>();
  const add = (type: unknown) => {
    const name = String(type)
      .toLowerCase()
      .replace(/^https?:\/\/schema\.org\//, '');
    for (const [pattern, kind] of KINDS) if (pattern.test(name)) kinds.add(kind);
  };
  const visit = (node: unknown, depth: number) => {
    if (depth > 3 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node.slice(0, 50)) visit(item, depth);
      return;
    }
    const record = node as Record<string, unknown>;
    const type = record['@type'];
    if (Array.isArray(type)) type.forEach(add);
    else if (type !== undefined) add(type);
    visit(record['@graph'], depth + 1);
    visit(record.mainEntity, depth + 1);
  };
  visit(metadata.jsonLd, 0);
  const og = metadata.openGraph['og:type']?.toLowerCase();
  if (og === 'article') kinds.add('article');
  else if (og === 'product' || og === 'og:product' || og === 'product.item') kinds.add('product');
  return kinds;
}
