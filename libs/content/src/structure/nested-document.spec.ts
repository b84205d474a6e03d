import { convertHtml } from '../convert-html';
import { findFirst, parseHtml, textContent } from '../dom';
import { unwrapNestedDocuments } from './nested-document';

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
