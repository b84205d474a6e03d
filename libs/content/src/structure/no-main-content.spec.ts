import { findFirst, parseHtml, type Element } from '../dom';
import { hasWordBesideChrome, isExcerpt, isPageChrome } from './no-main-content';

const noSkip = () => false;
const body = (html: string) => findFirst(parseHtml(`<html><body>${html}</body></html>`), 'body')!;
const first = (html: string, name: string) => findFirst(body(html), name)!;

describe('isPageChrome: what is never a page’s main content', () => {
  it('is site chrome, a <noscript> that asks for JavaScript and a skip link', () => {
    expect(isPageChrome(first('<footer><a href="/help">Help Center</a></footer>', 'footer'))).toBe(true);
    expect(isPageChrome(first('<noscript>You need to enable JavaScript to run this app.</noscript>', 'noscript'))).toBe(true);
    expect(isPageChrome(first('<noscript>This site requires JavaScript.</noscript>', 'noscript'))).toBe(true);
    expect(isPageChrome(first('<a href="#content">Skip navigation links</a>', 'a'))).toBe(true);
  });

  it('is not a <noscript> holding a crawler view, a link to a page, nor a block of the content', () => {
    const post = 'A reply in the thread that enables JavaScript fans to discuss it. '.repeat(8);
    expect(isPageChrome(first(`<noscript><p>${post}</p></noscript>`, 'noscript'))).toBe(false);
    expect(isPageChrome(first('<a href="/skiing">Skiing holidays</a>', 'a'))).toBe(false);
    expect(isPageChrome(first('<div class="product"><p>A rug</p></div>', 'div'))).toBe(false);
  });
});

describe('hasWordBesideChrome: the content shows a word outside the chrome', () => {
  const beside = (html: string, root = 'body', skip: (el: Element) => boolean = noSkip) => {
    const b = body(html);
    return hasWordBesideChrome([root === 'body' ? b : findFirst(b, root)!], skip);
  };

  it('is false for menus, footers, skip links and a JavaScript notice only', () => {
    expect(beside('<nav><a href="/">Home</a></nav><footer><h4>Help</h4><a href="/h">Help Center</a></footer>')).toBe(false);
    expect(beside('<a href="#main">Skip to content</a><noscript>Please enable JavaScript.</noscript><div id="app"></div>')).toBe(false);
  });

  it('is false for a root inside a footer, and true for text or an image’s alt text outside chrome', () => {
    expect(beside('<footer><ul><li><a href="/about">About us</a></li></ul></footer>', 'ul')).toBe(false);
    expect(beside('<nav><a href="/">Home</a></nav><p>Free delivery on every rug.</p>')).toBe(true);
    expect(beside('<nav><a href="/">Home</a></nav><div><img src="/rug.jpg" alt="Tan rug"></div>')).toBe(true);
  });

  it('leaves out what the caller skips', () => {
    expect(beside('<nav><a href="/">Home</a></nav><aside>Sign up</aside>', 'body', (el) => el.name === 'aside')).toBe(false);
  });
});

describe('isExcerpt: a description cut from the page’s own text', () => {
  it('is a cut ended by an ellipsis or in the middle of a sentence', () => {
    const post = 'I am choosing my preferred set of key switches (tactile ones) and want to find a starter board to go with them, a';
    expect(isExcerpt(`${post}&hellip;`)).toBe(true);
    expect(isExcerpt(`${post}…`)).toBe(true);
    expect(
      isExcerpt(
        'Another year has passed. I started a new job, so I was solely focused on onboarding for several months. As a result (and as',
      ),
    ).toBe(true);
  });

  it('is not a summary that ends its sentence, nor a tagline or an empty one', () => {
    expect(isExcerpt('Smarter Shopping, Better Living! Shop.example')).toBe(false);
    expect(isExcerpt('Shop the Tan Rug. Our rugs are machine washable. Free shipping!')).toBe(false);
    expect(isExcerpt('Experts offer online care for anxiety and more. Learn about the care you can get today.')).toBe(false);
    expect(isExcerpt('  ')).toBe(false);
  });
});
