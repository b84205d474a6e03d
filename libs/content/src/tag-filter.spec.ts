import { convertHtml } from './convert-html';
import { parseHtml } from './dom';
import { selectTags } from './tag-filter';

const PAGE =
  '<html><head><title>T</title></head><body><nav><a href="/x">Menu</a></nav>' +
  '<article><h1>Book</h1><p class="price">£5</p><div class="ad">Buy now ads</div><p>Long description of the book.</p></article>' +
  '<aside class="reviews"><p>Great read.</p></aside><footer>Footer words</footer></body></html>';

function convert(tags: { include?: string[]; exclude?: string[] }, mode: 'main' | 'full' = 'full', also = {}) {
  return convertHtml({ html: PAGE, url: 'https://shop.example/b', mode, tags, also });
}

describe('tag filters (include_tags, exclude_tags)', () => {
  it('include keeps only the matched elements, in document order, each once', () => {
    const out = convert({ include: ['.reviews', 'h1', 'article'] });
    // `h1` is inside `article`: rendered once, with it; then the reviews.
    expect(out.markdown).toBe('# Book\n\n£5\n\nBuy now ads\n\nLong description of the book.\n\nGreat read.');
  });

  it('exclude leaves the matched elements out, in full and main mode, and in the html and text forms', () => {
    const full = convert({ exclude: ['.ad', '.reviews'] }, 'full', { html: true, text: true });
    expect(full.markdown).not.toMatch(/Buy now|Great read/);
    expect(full.markdown).toContain('Long description of the book.');
    expect(full.html).not.toMatch(/Buy now|Great read/);
    expect(full.text).not.toMatch(/Buy now/);
    const main = convert({ exclude: ['.ad'] }, 'main');
    expect(main.markdown).toContain('Long description');
    expect(main.markdown).not.toContain('Buy now');
  });

  it('both: the included elements minus the excluded ones; links and metadata stay the whole page', () => {
    const out = convert({ include: ['article'], exclude: ['.price'] }, 'main');
    expect(out.markdown).toBe('# Book\n\nBuy now ads\n\nLong description of the book.');
    expect(out.links.map((l) => l.url)).toEqual(['https://shop.example/x']);
    expect(out.metadata.title).toBe('T');
  });

  it('an include that matches nothing gives empty content (no fallback to the whole page)', () => {
    expect(convert({ include: ['.absent'] }, 'main').markdown).toBe('');
  });

  it('selectTags: no filter selects nothing', () => {
    expect(selectTags(parseHtml(PAGE), undefined)).toEqual({ roots: null, excluded: new Set() });
  });
});
