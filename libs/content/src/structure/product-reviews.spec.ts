import { findFirst, parseHtml, walk, type Element } from '../dom';
import { isReviewBlock, mayBeProductPage, reviewBlocks } from './product-reviews';

const el = (attrs: string) => findFirst(parseHtml(`<body><div ${attrs}>text</div></body>`), 'div')!;
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

function skipped(html: string): string[] {
  const doc = parseHtml(html);
  const isReview = reviewBlocks(doc);
  const out: string[] = [];
  walk(doc, (node: Element) => {
    if (isReview(node)) {
      out.push(node.attribs.id ?? node.attribs.class ?? node.name);
      return false;
    }
    return true;
  });
  return out;
}

describe("product reviews: what buyers say is not the product page's content", () => {
  it('names review blocks by whole parts of their class or id, or schema.org markup', () => {
    for (const attrs of [
      'class="reviews"',
      'id="customer-reviews_feature_div"',
      'class="product-reviews-section"',
      'class="review-list"',
      'itemprop="review"',
      'class="Product-REVIEWS"',
      'id="x User-Reviews"',
    ])
      expect(isReviewBlock(el(attrs))).toBe(true);
    for (const attrs of ['class="preview"', 'class="overview"', 'class="review-body"', 'class="content"'])
      expect(isReviewBlock(el(attrs))).toBe(false);
  });

  it('reads the class and the id apart, and a class attribute asked again the same way', () => {
    for (const attrs of ['class="content" id="reviews"', 'class="reviews" id="content"', 'class="x reviews" id="reviews"'])
      expect(isReviewBlock(el(attrs))).toBe(true);
    for (let i = 0; i < 10_050; i++) isReviewBlock(el(`class="tile-${i} reviews"`));
    expect(isReviewBlock(el('class="content" id="main"'))).toBe(false);
    expect(isReviewBlock(el('class="x reviews" id="main"'))).toBe(true);
  });

  it('leaves out a product page’s reviews section, not its description', () => {
    const html = `<body><h1>Mat</h1><div id="desc">${words(200)}</div><section id="reviews" class="reviews">${words(60)}</section></body>`;
    expect(skipped(html)).toEqual(['reviews']);
  });

  it('keeps a rating line, a page that is mostly reviews, a theme’s body class, and the review excerpt of every tile of a grid', () => {
    expect(skipped(`<body><p>${words(200)}</p><div class="reviews">4.8 · 312 reviews</div></body>`)).toEqual([]);
    expect(skipped(`<body><h1>Reviews</h1><div class="reviews">${words(300)}</div></body>`)).toEqual([]);
    expect(skipped(`<body class="single-product-reviews"><p>${words(200)}</p></body>`)).toEqual([]);
    const tile = `<li><a>Item</a><div class="reviews-content">${words(40)}</div></li>`;
    expect(skipped(`<body><p>${words(300)}</p><ul>${tile}${tile}${tile}</ul></body>`)).toEqual([]);
  });

  it('applies to pages that declare a product, or neither an article nor a discussion', () => {
    expect(mayBeProductPage(new Set(['product']))).toBe(true);
    expect(mayBeProductPage(new Set())).toBe(true);
    expect(mayBeProductPage(new Set(['article']))).toBe(false);
    expect(mayBeProductPage(new Set(['discussion']))).toBe(false);
    expect(mayBeProductPage(new Set(['product', 'article']))).toBe(true);
  });
});
