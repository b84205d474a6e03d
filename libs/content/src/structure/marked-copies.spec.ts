import { findFirst, parseHtml } from '../dom';
import { markedCopies, marksAny } from './marked-copies';

const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `word${i + from}`).join(' ');
const slide = (id: string, cls: string) => `<div class="${cls}"><div id="${id}"><h3>Colorful design</h3><p>${words(30)}</p></div></div>`;

function named(html: string): string[] {
  return [...markedCopies(parseHtml(html), () => false)].map((el) => el.attribs.id ?? el.name).sort();
}

describe('marked copies: a cloned or hidden copy of a block is read once', () => {
  it("leaves out a carousel's cloned slides, whole, and keeps the shown one", () => {
    const html = `<body>${slide('a', 'slick-slide slick-cloned')}${slide('b', 'slick-slide')}${slide('c', 'swiper-slide swiper-slide-duplicate')}</body>`;
    expect(named(html)).toEqual(['a', 'c']);
  });

  it('leaves out the narrow-screen copy and an inert copy, and keeps the wide-screen one', () => {
    const html = `<body>${slide('a', 'md:hidden')}${slide('b', 'hidden md:block')}<div inert>${slide('c', 'x')}</div></body>`;
    expect(named(html)).toEqual(['a', 'c']);
  });

  it('reads a copy shown from some width on as shown (Bootstrap `d-none d-lg-block`)', () => {
    const html = `<body>${slide('a', 'd-none d-sm-none d-lg-block')}${slide('b', 'sidebar')}${slide('c', 'd-block d-lg-none')}</body>`;
    expect(named(html)).toEqual(['c']);
  });

  it('keeps copies shown alike, short blocks that repeat, and a marked block with no shown twin', () => {
    const html =
      `<body>${slide('a', 'tab')}${slide('b', 'tab')}<p class="clone">Free shipping</p><p>Free shipping</p>` +
      `<div class="slick-cloned"><p id="c">${words(30, 1)}</p></div></body>`;
    expect(named(html)).toEqual([]);
  });

  it('finds a copy whose markup differs but whose visible text is the same, and no copy in a block of as many letters', () => {
    // The copy spaces and wraps its words otherwise and hides an extra line: read as a reader sees it, it is the same text.
    const copy =
      `<div class="slick-cloned"><div id="b"><h3>Colorful   design</h3>\n<p><span>${words(15)}</span>\n ${words(15, 15)}</p>` +
      `<p hidden>${words(40, 100)}</p><script>var x = "${words(20)}";</script></div></div>`;
    // A block with exactly as many letters as the slide, not the same text: not a copy.
    const other = `<div class="slick-cloned"><div id="c"><h3>Colorful design</h3><p>${words(30).replace(/word/g, 'wrdo')}</p></div></div>`;
    expect(named(`<body>${slide('a', 'slide')}${copy}${other}</body>`)).toEqual(['b']);
  });

  it('compares a block whose text is all in one inline child (a paragraph made of one span)', () => {
    const para = (id: string) => `<p id="${id}"><span>${words(30)}</span></p>`;
    const html = `<body><div class="d-none d-md-block">${para('a')}</div><div class="d-md-none">${para('b')}</div></body>`;
    expect(named(html)).toEqual(['b']);
  });

  it('reads an underscore-named narrow-screen copy (`hidden_desktop`) as the copy', () => {
    const html = `<body>${slide('a', 'cards hidden_mobile')}${slide('b', 'cards hidden_desktop')}</body>`;
    expect(named(html)).toEqual(['b']);
  });
});

describe('marksAny: whether a page marks any element below its body as a copy', () => {
  const body = (html: string) => findFirst(parseHtml(`<body>${html}</body>`), 'body')!;

  it('finds every kind of mark, in any case', () => {
    for (const mark of [
      'class="Slick-Cloned"',
      'class="x swiper-slide-duplicate"',
      'class="sr-only"',
      'class="screen-reader-text"',
      'class="md:hidden"',
      'class="d-lg-none"',
      'class="visible-xs"',
      'class="show-for-small-only"',
      'class="mobile_only"',
      'inert',
    ]) {
      expect(marksAny(body(`<div><p ${mark}>text</p></div>`))).toBe(true);
    }
  });

  it('finds none where no class is a mark (a mark word inside another name, a class shown from some width on, the body itself)', () => {
    expect(marksAny(body('<div class="hidden-gem only-child"><p class="hidden md:block">text</p></div>'))).toBe(false);
    expect(marksAny(findFirst(parseHtml('<body class="slick-cloned"><p>text</p></body>'), 'body')!)).toBe(false);
  });
});
