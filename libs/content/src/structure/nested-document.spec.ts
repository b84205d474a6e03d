import { convertHtml } from '../convert-html';
import { findFirst, parseHtml, textContent } from '../dom';
import { adoptNestedDocument, unwrapNestedDocuments } from './nested-document';

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

const prose = 'This protocol is designed to be modified to meet your needs, while still adhering to what the science tells us.';

describe('nested documents: a document pasted inside another is read as a browser reads it', () => {
  it("unwraps a whole document pasted in the head, so that the body is the page's own", () => {
    const doc = parseHtml(
      `<html><head><title>T</title><!DOCTYPE html><html lang="en"><head><meta name="x"></head><body><script>var a;</script></head>` +
        `<body><article><p>${prose}</p></article></body></html>`,
    );
    unwrapNestedDocuments(doc);
    expect(textContent(findFirst(doc, 'body')!)).toContain('This protocol is designed');
    expect(findFirst(findFirst(doc, 'head')!, 'body')).toBeUndefined();
  });

  it('unwraps one pasted inside an article, keeping its text where it stands', () => {
    const doc = parseHtml(
      `<html><body><article><p>Before</p><html><body><p>${prose}</p></body></html><p>After</p></article></body></html>`,
    );
    unwrapNestedDocuments(doc);
    const article = findFirst(doc, 'article')!;
    expect(findFirst(article, 'html')).toBeUndefined();
    expect(textContent(article)).toMatch(/Before.*This protocol.*After/s);
  });

  it('gives the main content the article of a page whose head holds a pasted document', () => {
    const html =
      `<html><head><title>Fitness protocol</title><!DOCTYPE html><html><head></head><body><script type="application/ld+json">{}</script></head>` +
      `<body><nav><a href="/">Home</a></nav><article><h1>Fitness protocol</h1><p>${prose}</p><p>${prose}</p><p>${prose}</p></article></body></html>`;
    const text = convertHtml({ html, url: 'https://example.com/newsletter', mode: 'main', format: 'text' }).markdown;
    expect(text).toContain('This protocol is designed');
  });
});
