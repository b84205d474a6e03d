import { convertHtml } from '../convert-html';
import { findFirst, parseHtml, textContent } from '../dom';
import { adoptContentAfterBody } from './after-body';

const post =
  '<div class="post"><h1>Six types of outsourcing</h1><p>The post a template writes after closing its document once already.</p></div>';

describe('adoptContentAfterBody: what a page writes after </html> belongs to its body', () => {
  it('moves elements and text after <html> to the end of the body', () => {
    const doc = parseHtml(`<html><body><p>Before</p></body></html>${post} tail`);
    adoptContentAfterBody(doc);
    expect(textContent(findFirst(doc, 'body')!)).toContain('Six types of outsourcing');
    expect(textContent(findFirst(doc, 'body')!).trim().endsWith('tail')).toBe(true);
  });

  it('gives the main content the post written after a doubled </body></html>', () => {
    const html = `<html><head><title>Six types of outsourcing</title></head><body><nav><a href="/">Home</a></nav></body></html>${post}</body></html>`;
    const text = convertHtml({ html, url: 'https://example.com/blog', mode: 'main', format: 'text' }).markdown;
    expect(text).toContain('The post a template writes after closing');
  });
});
