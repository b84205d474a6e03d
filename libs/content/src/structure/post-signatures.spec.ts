import { findFirst, parseHtml } from '../dom';
import { postSignatures } from './post-signatures';

const names = (html: string): string[] => {
  const body = findFirst(parseHtml(html), 'body')!;
  return [...postSignatures([body], () => false)].map((el) => el.attribs.class);
};

describe("post signatures: the poster's standing lines under a post", () => {
  it('leaves out a short block named a signature, in the usual spellings', () => {
    expect(
      names(
        '<body><div class="post"><p>The answer.</p><div class="signature">My rig: a lathe</div></div>' +
          '<div class="post"><p>Another.</p><aside class="message-signature">Member since 2009</aside></div>' +
          '<div class="post"><p>A third.</p><div class="signaturecontainer">Visit my shop</div></div></body>',
      ),
    ).toEqual(['signature', 'message-signature', 'signaturecontainer']);
  });

  it('keeps a long block named so, and names that only contain the word', () => {
    expect(names(`<body><section class="signature"><p>${'A long section about signatures. '.repeat(30)}</p></section></body>`)).toEqual([]);
    expect(names('<body><div class="signatures-dish">Our signature dish</div><div class="designature">x</div></body>')).toEqual([]);
  });
});
