import { findFirst, parseHtml } from '../dom';
import { textCensus, type CensusLists } from './text-census';

describe('textCensus: text and link lengths of every element, counted once', () => {
  it('counts text, link text and links bottom-up, leaving skipped elements out', () => {
    const doc = parseHtml('<body><div id="d"><p>Some  prose</p><a href="/x">a link</a><script>var x</script></div></body>');
    const body = findFirst(doc, 'body')!;
    const counts = textCensus(body, (el) => el.name === 'script');
    expect(counts.get(findFirst(doc, 'div')!)).toEqual({
      text: 'Some prose'.length + 'a link'.length,
      link: 'a link'.length,
      links: 1,
      texts: 2,
    });
    expect(counts.has(findFirst(doc, 'script')!)).toBe(false);
  });

  it('lists the texts it counts in document order, with their commas, when asked', () => {
    const doc = parseHtml('<body><p>a,  b</p><script>x, y</script><div> <a href="/">c，d</a></div></body>');
    const body = findFirst(doc, 'body')!;
    const texts: CensusLists = { lengths: [], commas: [], mains: [] };
    const counts = textCensus(body, (el) => el.name === 'script', texts);
    expect(texts).toEqual({ lengths: [4, 0, 3], commas: [1, 0, 1], mains: [] });
    expect(counts.get(findFirst(doc, 'div')!)!.texts).toBe(2);
    expect(counts.get(body)).toEqual(textCensus(body, (el) => el.name === 'script').get(body));
  });

  it('lists the elements that declare the main region, in its order (an element after its descendants)', () => {
    const doc = parseHtml('<body><div role="main" id="outer"><main id="inner">Text</main></div><main id="skipped"></main></body>');
    const lists: CensusLists = { lengths: [], commas: [], mains: [] };
    textCensus(findFirst(doc, 'body')!, (el) => el.attribs.id === 'skipped', lists);
    expect(lists.mains.map((el) => el.attribs.id)).toEqual(['inner', 'outer']);
  });

  it('stays iterative on garbage nesting', () => {
    const depth = 20_000;
    const doc = parseHtml(`<body>${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}</body>`);
    expect(textCensus(findFirst(doc, 'body')!, () => false).get(findFirst(doc, 'body')!)!.text).toBe(4);
  });
});
