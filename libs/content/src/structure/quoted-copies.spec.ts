import { findFirst, isElement, parseHtml, type Element } from '../dom';
import { quotedCopies } from './quoted-copies';

const ids = (html: string): string[] => {
  const body = findFirst(parseHtml(html), 'body')!;
  return [...quotedCopies([body], () => false)].map((el: Element) => el.attribs.id);
};
const long = 'The opening post asks which of the two cameras holds up better in the rain, and at what price each one sells today. '.repeat(
  2,
);

describe('quoted copies: a reply quoting a whole earlier post', () => {
  it('leaves out a long quote of text shown above it, not the post it quotes', () => {
    expect(
      ids(
        `<body><article id="op"><p>${long}</p></article><article><blockquote id="q">Poster said: ${long}</blockquote><p>I agree.</p></article></body>`,
      ),
    ).toEqual(['q']);
  });

  it('keeps a short quote, a quote of text not on the page, and a quote above the text it repeats', () => {
    expect(ids(`<body><p>${long}</p><blockquote id="q">Poster said: which of the two cameras holds up better</blockquote></body>`)).toEqual(
      [],
    );
    expect(ids(`<body><p>An article.</p><blockquote id="q">${long}</blockquote></body>`)).toEqual([]);
    expect(ids(`<body><blockquote id="q">${long}</blockquote><p>${long}</p></body>`)).toEqual([]);
  });

  it('reads a quote that is itself one of the roots, and nothing on a page without quotes', () => {
    const body = findFirst(parseHtml(`<body><p id="p">${long}</p><blockquote id="q">${long}</blockquote></body>`), 'body')!;
    const [p, q] = body.children.filter(isElement);
    expect([...quotedCopies([p, q], () => false)].map((el) => el.attribs.id)).toEqual(['q']);
    expect(ids(`<body><p>${long}</p><div><p>${long}</p></div></body>`)).toEqual([]);
  });
});
