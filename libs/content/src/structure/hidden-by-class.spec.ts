import { findFirst, parseHtml } from '../dom';
import { isHiddenByClass } from './hidden-by-class';

const el = (cls: string) => findFirst(parseHtml(`<body><div class="${cls}">text</div></body>`), 'div')!;

describe('hidden by class: what a framework stylesheet hides', () => {
  it('takes the hiding classes of the common frameworks, as whole class names', () => {
    for (const cls of ['hide', 'd-none', 'is-hidden', 'invisible', 'productView-info hide']) expect(isHiddenByClass(el(cls))).toBe(true);
    for (const cls of ['hide-on-mobile', 'hidden-xs', 'no-hide', 'content', 'd-none-x invisibles'])
      expect(isHiddenByClass(el(cls))).toBe(false);
  });

  it("leaves alone a block a class shows from some screen width on, and Tailwind's `hidden` (collapsed accordion answers)", () => {
    expect(isHiddenByClass(el('d-none d-lg-block'))).toBe(false);
    expect(isHiddenByClass(el('invisible md:block'))).toBe(false);
    expect(isHiddenByClass(el('answer hidden'))).toBe(false);
  });

  it('gives the same verdict on a class attribute asked again, also once more attributes were seen than it remembers', () => {
    const asked = [el('card d-none'), el('card')];
    const first = asked.map(isHiddenByClass);
    for (let i = 0; i < 10_050; i++) isHiddenByClass(el(`tile-${i} d-none`));
    expect(asked.map(isHiddenByClass)).toEqual(first);
    expect(first).toEqual([true, false]);
  });
});
