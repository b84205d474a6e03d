import { convertHtml } from '../convert-html';
import { findFirst, parseHtml, textContent } from '../dom';
import { adoptNestedDocument } from './nested-document';

const pasted = '<!DOCTYPE html><html lang="en"><head><!-- meta --></head><body><span>Pasted note</span></body></html>';
const page = (head: string) =>
  `<!DOCTYPE html><html><head><title>Foundational Fitness Protocol</title>${head}</head><body><article><h1>Foundational Fitness Protocol</h1>` +
  '<p>This protocol is designed to be modified to meet your needs while adhering to what the science tells us.</p></article></body></html>';

describe('adoptNestedDocument: a document pasted into the head has one body, the page’s', () => {
  it('drops the pasted <html> and puts its body content at the start of the page’s body', () => {
    const doc = parseHtml(page(pasted));
    adoptNestedDocument(doc);
    const body = findFirst(doc, 'body')!;
    expect(textContent(body)).toMatch(/^\s*Pasted note[\s\S]*Foundational Fitness Protocol/);
    expect(findFirst(findFirst(doc, 'head')!, 'html')).toBeUndefined();
  });

  it('leaves a page without a pasted document alone', () => {
    const doc = parseHtml(page(''));
    adoptNestedDocument(doc);
    expect(textContent(findFirst(doc, 'body')!)).toContain('This protocol is designed');
  });

  it('gives the main content the page’s article, not the pasted body', () => {
    const text = convertHtml({ html: page(pasted), url: 'https://example.com/protocol', mode: 'main', format: 'text' }).markdown;
    expect(text).toContain('This protocol is designed to be modified');
  });
});
