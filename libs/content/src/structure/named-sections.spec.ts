import { findFirst, parseHtml } from '../dom';
import { isNamedSection } from './named-sections';
import { textCensus } from './text-census';

const prose = 'Our consultants design, build and run data platforms for enterprises of every size and sector.';

function check(html: string): boolean {
  const body = findFirst(parseHtml(`<body>${html}</body>`), 'body')!;
  const counts = textCensus(body, () => false);
  return isNamedSection(findFirst(body, 'div')!, counts);
}

describe('named sections: a block a furniture name would leave out that reads as a section of the page', () => {
  it('keeps a promo-named component with a heading and prose', () => {
    expect(check(`<div class="promo-container"><h2>Data engineering</h2><p>${prose}</p><p>${prose}</p></div>`)).toBe(true);
  });

  it('counts an element marked as a heading (`role="heading"`) as its heading', () => {
    const headline = `<div role="heading" aria-level="3"><p>Power unpacked</p></div>`;
    expect(check(`<div class="feature-gallery">${headline}<div class="description"><p>${prose}</p><p>${prose}</p></div></div>`)).toBe(true);
  });

  it('not a block of links, a caption-sized block, or one without a heading', () => {
    const links = Array.from({ length: 6 }, (_, i) => `<li><a href="/s/${i}">${prose.slice(0, 60)}</a></li>`).join('');
    expect(check(`<div class="promo-container"><h2>Services</h2><ul>${links}</ul><p>${prose}</p></div>`)).toBe(false);
    expect(check(`<div class="banner"><h2>Try it free</h2><p>Start today, no card needed.</p></div>`)).toBe(false);
    expect(check(`<div class="teaser"><p>${prose}</p><p>${prose}</p><p>${prose}</p></div>`)).toBe(false);
  });

  it('not comments, an author box or reading suggestions, whatever they hold', () => {
    for (const cls of ['comments-area', 'author-bio', 'related-posts', 'newsletter-signup'])
      expect(check(`<div class="${cls}"><h3>Heading</h3><p>${prose}</p><p>${prose}</p></div>`)).toBe(false);
  });
});
