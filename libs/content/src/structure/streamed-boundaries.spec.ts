import { convertHtml } from '../convert-html';
import { getInnerHTML } from 'domutils';
import { findFirst, parseHtml } from '../dom';
import { resolveStreamedBoundaries } from './streamed-boundaries';

const resolved = (html: string): string => {
  const doc = parseHtml(html);
  resolveStreamedBoundaries(doc, html);
  return getInnerHTML(findFirst(doc, 'body')!);
};
const story = '<article><h1>The story</h1><p>The paragraphs the reader came for, streamed after the shell.</p></article>';

describe('resolveStreamedBoundaries: streamed server rendering put where its scripts put it', () => {
  it('fills a Suspense boundary with its segment and drops the loading fallback ($RC)', () => {
    const html =
      '<body><header>Site</header><!--$?--><template id="B:0"></template><div class="skeleton">Loading…</div><!--/$-->' +
      `<footer>Footer</footer><div hidden id="S:0">${story}</div><script>$RC("B:0","S:0")</script></body>`;
    expect(resolved(html)).toBe(`<header>Site</header><!--$?-->${story}<!--/$--><footer>Footer</footer><script>$RC("B:0","S:0")</script>`);
  });

  it('fills a placeholder with its segment ($RS), and pairs a segment without a call by its number', () => {
    const html =
      '<body><main><template id="P:1"></template><p>Below</p></main><!--$?--><template id="B:2"></template>Wait<!--/$-->' +
      '<div hidden id="S:1"><p>Above</p></div><div hidden id="S:2"><p>Late part</p></div><script>$RS("S:1","P:1")</script></body>';
    expect(resolved(html)).toBe('<main><p>Above</p><p>Below</p></main><!--$?--><p>Late part</p><!--/$--><script>$RS("S:1","P:1")</script>');
  });

  it('keeps a nested boundary inside a fallback, and leaves a boundary never closed as it is', () => {
    const nested =
      '<body><!--$?--><template id="B:0"></template><!--$--><i>inner</i><!--/$--><b>outer</b><!--/$--><p>After</p><div hidden id="S:0">Done</div></body>';
    expect(resolved(nested)).toBe('<!--$?-->Done<!--/$--><p>After</p>');
    const cut = '<body><!--$?--><template id="B:0"></template><p>Rest of the page</p><div hidden id="S:0">Done</div></body>';
    expect(resolved(cut)).toBe('<!--$?-->Done<p>Rest of the page</p>');
  });

  it('gives the main content of a streamed page its article', () => {
    const html =
      '<html><head><title>The story</title></head><body><nav><a href="/">Home</a><a href="/a">A</a><a href="/b">B</a></nav>' +
      '<!--$?--><template id="B:0"></template><div class="animate-pulse"></div><!--/$--><footer>Footer</footer>' +
      `<div hidden id="S:0">${story}</div><script>$RC("B:0","S:0")</script></body></html>`;
    const text = convertHtml({ html, url: 'https://example.com/story', mode: 'main', format: 'text' }).markdown;
    expect(text).toContain('The story');
    expect(text).toContain('The paragraphs the reader came for');
  });
});
