import { parseHtml, type Element } from './dom';
import { extractMainContent } from './main-content';
import { textOf } from './readability/text-measure';

const sentence = (i: number) => `Sentence ${i} of the article, with enough words, commas, and detail to read as prose. `;
const prose = (n: number, from = 0) => Array.from({ length: n }, (_, i) => sentence(from + i)).join('');

/** The text the main content keeps: the roots in order, without what it removed. */
function kept(html: string): string {
  const doc = parseHtml(html);
  const { roots, removed } = extractMainContent(doc, (el) => el.name === 'script');
  const text = (el: Element): string =>
    removed.has(el) ? '' : el.children.map((c) => ('name' in c ? text(c as Element) : textOf(c as unknown as Element))).join('');
  return roots.map(text).join(' ').replace(/\s+/g, ' ').trim();
}

describe('extractMainContent: the article, without the page around it', () => {
  it('keeps the article and leaves out navigation, sidebar and footer', () => {
    const html =
      '<body><nav><a href="/">Home</a><a href="/news">News</a></nav>' +
      `<div class="sidebar"><p>${prose(2, 100)}</p></div>` +
      `<div class="article-body"><h1>Title</h1><p>${prose(4)}</p><p>${prose(4, 4)}</p></div>` +
      '<footer>Copyright</footer></body>';
    const text = kept(html);
    expect(text).toContain('Sentence 0 of the article');
    expect(text).toContain('Sentence 7 of the article');
    expect(text).not.toContain('Sentence 100');
    expect(text).not.toContain('Home');
    expect(text).not.toContain('Copyright');
  });

  it('drops a list of links inside the article (related stories) and keeps a data table', () => {
    const related = `<ul>${Array.from({ length: 6 }, (_, i) => `<li><a href="/s${i}">Related story number ${i}</a></li>`).join('')}</ul>`;
    const data = `<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>$5</td></tr></table>`;
    const text = kept(`<body><article><p>${prose(6)}</p>${related}${data}<p>${prose(6, 6)}</p></article></body>`);
    expect(text).toContain('Sentence 11');
    expect(text).toContain('Basic');
    expect(text).not.toContain('Related story');
  });

  it('merges a sibling block that scores like the article (an article split in two columns)', () => {
    const text = kept(
      `<body><div><div class="col"><p>${prose(5)}</p></div><div class="col"><p>${prose(5, 5)}</p></div><div><a href="/x">Share</a></div></div></body>`,
    );
    expect(text).toContain('Sentence 0');
    expect(text).toContain('Sentence 9');
  });

  it('scores a fragment without <html> or <body>', () => {
    expect(kept(`<div class="menu"><a href="/">Home</a></div><div><p>${prose(8)}</p></div>`)).toContain('Sentence 7');
  });

  it('relaxes its rules when the strict grab finds too little text, and keeps the longest grab', () => {
    // Everything sits in an "unlikely" comment block: the first grab strips it, a later one keeps it.
    const text = kept(`<body><div class="comment"><p>${prose(8)}</p></div></body>`);
    expect(text).toContain('Sentence 0');
    expect(text).toContain('Sentence 7');
  });
});
