import { findFirst, parseHtml } from '../dom';
import { bylines } from './bylines';
import { textCensus } from './text-census';

const out = (html: string): string[] => {
  const body = findFirst(parseHtml(html), 'body')!;
  return [
    ...bylines(
      [body],
      textCensus(body, () => false),
      () => false,
    ),
  ].map((el) => el.attribs.id ?? el.name);
};

describe('bylines: who wrote a post and how long it takes to read', () => {
  it('leaves out a byline and a reading time', () => {
    const html = `<body><p id="by">Written by Ann Lee</p><ul><li id="time">11 min read</li></ul><p id="posted">Posted by David at December 16, 2025</p><p>The post itself.</p></body>`;
    expect(out(html)).toEqual(['by', 'time', 'posted']);
  });

  it('keeps a publisher line, a sentence that starts so, and a long line', () => {
    const html =
      `<body><p>Published by Helvetiq</p><p>Written by hand, the letters took a year to reach the island and longer to be read.</p>` +
      `<p>By the river</p></body>`;
    expect(out(html)).toEqual([]);
  });
});
