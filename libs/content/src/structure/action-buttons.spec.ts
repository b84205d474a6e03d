import { findFirst, parseHtml } from '../dom';
import { actionButtons } from './action-buttons';
import { textCensus } from './text-census';

/** The text of each button left out of the body. */
const out = (html: string): string[] => {
  const body = findFirst(parseHtml(html), 'body')!;
  const counts = textCensus(body, () => false);
  return [...actionButtons([body], counts, () => false)].map((el) => el.children.map((c) => ('data' in c ? c.data : '')).join(''));
};

describe('action buttons: what a reader presses, not what the page says', () => {
  it('leaves out a <button>, a link drawn as a button and the button role, a few words long', () => {
    expect(
      out(
        '<body><p>The text.</p><button>Add to cart</button><p><a class="btn btn-primary" href="/p">Buy poster</a></p>' +
          '<div role="button">Close form</div><a class="wp-block-button__link" href="/x">Get started</a></body>',
      ),
    ).toEqual(['Add to cart', 'Buy poster', 'Close form', 'Get started']);
  });

  it('keeps a disclosure toggle, a block holding a heading, a long label, a button inside a sentence and plain links', () => {
    expect(
      out(
        '<body><button aria-expanded="false">Is it free?</button><div class="button"><h3>Plans</h3></div>' +
          `<a class="btn" href="/a">${'A card that happens to be clickable, with words. '.repeat(2)}</a>` +
          '<p>Read the <a class="btn" href="/g">guide</a> first.</p><p><a class="buttons-row" href="/n">Next</a> <a href="/m">More</a></p></body>',
      ),
    ).toEqual([]);
  });
});
