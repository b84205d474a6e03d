import { Parser } from 'htmlparser2';
import { DomHandler } from 'domhandler';
import { domShape } from '../../../test/harness/dom-shape';
import { NamingParser, NameTable } from './html-parser';

const OPTIONS = { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true };

/** Every node of a parse in document order: its depth, type, name, attributes (in order) and data. */
function shape(html: string, naming: boolean): string[] {
  const handler = new DomHandler();
  new (naming ? NamingParser : Parser)(handler, OPTIONS).end(html);
  return domShape(handler.root);
}

describe('NamingParser: the same DOM as htmlparser2’s own parser, its names kept', () => {
  const pages = [
    '<!DOCTYPE html><html><head><title>A &amp; B</title></head><body><p class="x  y" id=z>One</p><p class=a ID=b>Two</p></body></html>',
    '<DIV Class="Upper" data-X=1><div class="lower" data-x=2 data-X=3>case</div></DIV>',
    '<svg viewBox="0 0 1 1"><clippath id=c></clippath><clipPath></clipPath><image href=x></image><foreignObject><p>in</p></foreignObject></svg>',
    '<clippath>html</clippath><image src=y><foreignobject>f</foreignobject><svg><clippath/><linearGradient/></svg><lineargradient>',
    '<p constructor=1 __proto__=2 hasOwnProperty=3 class=a class=b>duplicates and prototype names</p>',
    '<math><mi>x</mi></math><table><tr><td>a<td>b</table><form><form><input name=q></form>',
    `<div ${'a'.repeat(60)}=long ${'a'.repeat(60)}=again>long names</div><${'t'.repeat(50)}>long tag</${'t'.repeat(50)}>`,
  ];

  it('builds the same nodes, attributes and text, each page read twice (the second from the names kept)', () => {
    for (const html of pages) {
      expect(shape(html, true)).toEqual(shape(html, false));
      expect(shape(html, true)).toEqual(shape(html, false));
    }
  });

  it('builds the same DOM on random markup', () => {
    const pieces = [
      '<',
      '>',
      '/',
      '=',
      '"',
      ' ',
      'a',
      'A',
      'div',
      'DIV',
      'p',
      'svg',
      'clippath',
      'clipPath',
      'image',
      'class',
      'Class',
      '</',
      '<!--',
      '-->',
    ];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let n = 0; n < 300; n++) {
      let html = '';
      for (let i = 0; i < 40; i++) html += pieces[Math.floor(random() * pieces.length)];
      expect(shape(html, true)).toEqual(shape(html, false));
    }
  });
});

describe('NameTable', () => {
  it('finds a kept name only where the source holds it exactly', () => {
    const table = new NameTable();
    const source = 'xx class CLASS clas classy';
    expect(table.find(source, 3, 8)).toBeUndefined();
    table.keep('class', source, 3, 8);
    expect(table.find(source, 3, 8)).toBe('class');
    expect(table.find(source, 9, 14)).toBeUndefined();
    expect(table.find(source, 15, 19)).toBeUndefined();
    expect(table.find(source, 20, 26)).toBeUndefined();
    expect(table.find(source, 20, 25)).toBe('class');
  });
});
