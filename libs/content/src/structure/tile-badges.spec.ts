import { parseHtml } from '../dom';
import { tileBadges } from './tile-badges';

const tile = (i: number, badge: string) =>
  `<li class="tile"><span class="badge" id="b${i}">${badge}</span><a href="/p/${i}">Item ${i}</a> $${i}9.00` +
  `<button id="c${i}">Select size</button></li>`;

function named(html: string): string[] {
  return [...tileBadges(parseHtml(html), () => false)].map((el) => el.attribs.id ?? el.name).sort();
}

describe("tile badges: a grid's labels and tile controls are not its items", () => {
  it('leaves out the labels and controls repeated over the tiles, read whole', () => {
    const html = `<body><h1>Sofas</h1><ul>${tile(1, 'Best seller')}${tile(2, 'Top rated')}${tile(3, 'Sold out')}</ul></body>`;
    expect(named(html)).toEqual(['b1', 'b2', 'b3', 'c1', 'c2', 'c3']);
  });

  it('keeps a label that is part of a longer text, a heading, and a lone label', () => {
    const html =
      `<body><h2>Best sellers</h2><p>Our best seller is back in stock.</p><ul>` +
      `<li><a href="/p/1">Item 1</a> <span>In stock: 3 left</span></li></ul><span id="lone">Sold out</span></body>`;
    expect(named(html)).toEqual([]);
  });
});
