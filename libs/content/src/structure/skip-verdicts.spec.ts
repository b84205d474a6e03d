import { findFirst, parseHtml, walk, type Element } from '../dom';
import { SkipVerdicts } from './skip-verdicts';

const ids = (html: string, ask: (verdicts: SkipVerdicts, doc: ReturnType<typeof parseHtml>) => (el: Element) => boolean) => {
  const doc = parseHtml(html);
  const verdicts = new SkipVerdicts(doc, [(el) => el.attribs.class === 'a', (el) => el.attribs.class === 'b']);
  const skipped = ask(verdicts, doc);
  const out: string[] = [];
  walk(doc, (el) => {
    if (el.attribs.id && skipped(el)) out.push(el.attribs.id);
  });
  return out;
};

describe('skip verdicts: each rule asked once per element', () => {
  const html = '<body><p id="1" class="a"><span id="2" class="b">x</span></p><p id="3" class="b">y</p><p id="4">z</p></body>';

  it('answers for every element of the page, inside a left-out one too, as the rules would', () => {
    expect(ids(html, (v) => v.skipped)).toEqual(['1', '2', '3']);
  });

  it('answers for the first rules only, the later ones and the added ones not asked', () => {
    expect(ids(html, (v) => v.skippedBy(1))).toEqual(['1']);
    expect(ids(html, (v) => v.skippedBy(0))).toEqual([]);
    expect(
      ids(html, (v, doc) => {
        const before = v.skippedBy(2);
        v.add([findFirst(doc, 'body')!.children[2] as Element]);
        return before;
      }),
    ).toEqual(['1', '2', '3']);
  });

  it('adds a rule known as a set of elements, numbered after the ones asked', () => {
    const doc = parseHtml(html);
    const verdicts = new SkipVerdicts(doc, [(el) => el.attribs.class === 'a']);
    const fourth = findFirst(doc, 'body')!.children[2] as Element;
    verdicts.add([fourth]);
    expect(verdicts.skipped(fourth)).toBe(true);
    expect(verdicts.skippedBy(1)(fourth)).toBe(false);
    expect(verdicts.skippedBy(2)(fourth)).toBe(true);
  });

  it('leaves out by none an element the walk never met', () => {
    const doc = parseHtml(html);
    const verdicts = new SkipVerdicts(doc, [() => true]);
    const other = findFirst(parseHtml('<p class="a">x</p>'), 'p')!;
    expect(verdicts.skipped(other)).toBe(false);
  });
});
