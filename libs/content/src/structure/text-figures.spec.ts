import { convertHtml } from '../convert-html';
import { findFirst, parseHtml } from '../dom';
import { isTextFigure } from './text-figures';

const prose = 'The markets that grew fastest last year were in the South, where new homes sold within weeks of listing.';

function figure(inner: string): boolean {
  return isTextFigure(findFirst(parseHtml(`<body>${inner}</body>`), 'figure')!);
}

describe('text figures: a figure that holds a table, a quotation or code is text', () => {
  it('a table, a quotation or a code listing, however deep, makes a figure text', () => {
    expect(
      figure('<figure class="wp-block-table"><table><tr><td>Austin</td><td>12%</td></tr></table><figcaption>Source</figcaption></figure>'),
    ).toBe(true);
    expect(figure('<figure><div><blockquote><p>Olivia teaches in a way everyone can follow.</p></blockquote></div></figure>')).toBe(true);
    expect(figure('<figure><pre><code>npm install twilio</code></pre></figure>')).toBe(true);
  });

  it('not an embedded post', () => {
    expect(figure('<figure class="wp-block-embed-twitter"><blockquote class="twitter-tweet"><p>A post</p></blockquote></figure>')).toBe(
      false,
    );
    expect(
      figure('<figure><div><blockquote><p>A post</p></blockquote><script src="https://social.example/widgets.js"></script></div></figure>'),
    ).toBe(false);
  });

  it('not a picture with its caption, nor a table only in the caption', () => {
    expect(figure('<figure><img src="a.jpg"><figcaption>A house for sale</figcaption></figure>')).toBe(false);
    expect(figure('<figure><img src="a.jpg"><figcaption><table><tr><td>Photo credit</td></tr></table></figcaption></figure>')).toBe(false);
  });

  it("keeps an article's table drawn in a figure, and leaves its pictures' captions out", () => {
    const rows = Array.from({ length: 8 }, (_, i) => `<tr><td>Market ${i}</td><td>${10 + i}% growth in home prices</td></tr>`).join('');
    const html =
      `<body><article><h1>Hottest markets</h1><p>${prose}</p><p>${prose}</p><p>${prose}</p>` +
      `<figure class="wp-block-table"><table><thead><tr><th>Market</th><th>Growth</th></tr></thead><tbody>${rows}</tbody></table></figure>` +
      `<figure><img src="map.png"><figcaption>A map of the markets</figcaption></figure><p>${prose}</p></article></body>`;
    const text = convertHtml({ html, url: 'https://example.com/research', mode: 'main', format: 'text' }).markdown;
    expect(text).toContain('Market 7');
    expect(text).not.toContain('A map of the markets');
  });
});
