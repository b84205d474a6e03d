import { declaredKinds } from './declared-kind';

describe('declaredKinds: what a page says it is', () => {
  it('reads schema.org types at the top level, in @graph and mainEntity, and og:type', () => {
    const kinds = declaredKinds({
      jsonLd: [{ '@graph': [{ '@type': 'WebPage', mainEntity: { '@type': 'DiscussionForumPosting' } }, { '@type': ['Product'] }] }],
      openGraph: { 'og:type': 'article' },
    });
    expect([...kinds].sort()).toEqual(['article', 'discussion', 'product']);
    expect([...declaredKinds({ jsonLd: [{ '@type': 'https://schema.org/ItemList' }], openGraph: {} })]).toEqual(['collection']);
  });

  it('declares nothing for unknown types or malformed blocks', () => {
    expect(declaredKinds({ jsonLd: [null, 3, { '@type': 'Organization' }], openGraph: { 'og:type': 'website' } }).size).toBe(0);
  });
});
