import { parseHtml } from '../dom';
import { shortLines } from './short-lines';

const lines = (html: string, skip: (name: string) => boolean = () => false) =>
  shortLines(parseHtml(html), (el) => skip(el.attribs.id ?? '')).map(({ el, text }) => `${el.attribs.id ?? el.name}:${text}`);

describe("short lines: the page's short texts, read once", () => {
  it('gives each short text node with its element, white space collapsed, in document order', () => {
    const html = '<body>Body text<div id="a">  Best\n  seller  <b id="b">Sold out</b> tail</div><p id="c"> x </p></body>';
    expect(lines(html)).toEqual(['a:Best seller', 'a:tail', 'b:Sold out', 'c:x']);
  });

  it('passes over white space, long texts and what the caller leaves out', () => {
    const long = 'word '.repeat(20);
    const html = `<body><div id="a">\n   \n</div><p id="b">${long}</p><div id="c"><span id="d">Related products</span></div><p id="e">${'x'.repeat(70)}</p></body>`;
    expect(lines(html, (id) => id === 'c')).toEqual([`e:${'x'.repeat(70)}`]);
  });
});
