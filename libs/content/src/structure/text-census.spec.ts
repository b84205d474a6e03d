import { findFirst, parseHtml } from '../dom';
import { textCensus } from './text-census';

describe('textCensus: text and link lengths of every element, counted once', () => {
  it('counts text, link text and links bottom-up, leaving skipped elements out', () => {
    const doc = parseHtml('<body><div id="d"><p>Some  prose</p><a href="/x">a link</a><script>var x</script></div></body>');
    const body = findFirst(doc, 'body')!;
    const counts = textCensus(body, (el) => el.name === 'script');
    expect(counts.get(findFirst(doc, 'div')!)).toEqual({ text: 'Some prose'.length + 'a link'.length, link: 'a link'.length, links: 1 });
    expect(counts.has(findFirst(doc, 'script')!)).toBe(false);
  });

  it('stays iterative on garbage nesting', () => {
    const depth = 20_000;
    const doc = parseHtml(`<body>${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}</body>`);
    expect(textCensus(findFirst(doc, 'body')!, () => false).get(findFirst(doc, 'body')!)!.text).toBe(4);
  });
});
