import { candidatesFor, candidatesWithin, hrefTokens } from './candidates';
import { parsePage, select, selectWithin } from './dom';
import { runFieldRule } from './program';
import type { LearnableField } from './values';

const PAGE = `<html><body>
  <h1 class="title">Blue Kettle</h1>
  <p><b>Price:</b> 24.50 USD</p>
  <ul class="cards">
    <li class="card"><h3>Red Cup</h3><p>SKU: A-1</p><p>3.10</p></li>
    <li class="card"><h3>Tea Pot</h3><p>SKU: A-2</p><p>9.00</p></li>
  </ul>
</body></html>`;

const page = parsePage('https://shop.example/kettle', PAGE);
const field = (name: string, kind: LearnableField['kind']): LearnableField => ({ name, kind, list: false }) as LearnableField;

describe('candidatesFor: rules that would read the value the model gave', () => {
  it('proposes rules that read the value back from the page, the best scored first', () => {
    const title = field('title', 'string');
    const out = candidatesFor(title, { page, output: { title: 'Blue Kettle' } });
    expect(out.length).toBeGreaterThan(0);
    const best = [...out].sort((a, b) => a.score - b.score)[0];
    expect(runFieldRule(best.rule, page, title)).toBe('Blue Kettle');
  });

  it('finds a labelled number ("Price:") and reads it as a number', () => {
    const price = field('price', 'number');
    const out = candidatesFor(price, { page, output: { price: 24.5 } });
    expect(out.some((c) => runFieldRule(c.rule, page, price) === 24.5)).toBe(true);
  });

  it('proposes nothing for a value the page does not show', () => {
    expect(candidatesFor(field('title', 'string'), { page, output: { title: 'Green Kettle' } })).toEqual([]);
  });
});

describe('candidatesWithin: rules read inside one item of a list', () => {
  it('reads a property from its own element or its place in the item', () => {
    const [first, second] = select('li.card', page.doc);
    const price = field('price', 'number');
    const out = candidatesWithin(price, first, 3.1, page.url);
    expect(out.length).toBeGreaterThan(0);
    // The rules are the item's template, not this item's: some of them also find an element inside the second item.
    const inSecond = out.map((c) => selectWithin(c.rule.selector, second)).filter((els) => els.length > 0);
    expect(inSecond.length).toBeGreaterThan(0);
  });
});

describe('hrefTokens', () => {
  it('keeps a link path and query names, not ids', () => {
    expect(hrefTokens('/search?author=Ada&detailed=1')).toEqual(['author=', 'detailed=', '/search/']);
  });
});
