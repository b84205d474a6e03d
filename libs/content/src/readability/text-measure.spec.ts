import { findFirst, parseHtml } from '../dom';
import { ancestors, countCommas, insideTag, lastCommas, lengthAndCommas, normalizedLength, textOf } from './text-measure';

describe('text measures of the main-content detection', () => {
  it('counts each whitespace run once, leading whitespace not at all, no-break spaces as whitespace', () => {
    expect(normalizedLength('  a  b\n\n\tc ')).toBe(6);
    expect(normalizedLength('a\u00a0\u00a0b')).toBe(3);
    expect(normalizedLength('')).toBe(0);
    // Carriage returns and form feeds are whitespace, other control characters are not.
    expect(normalizedLength('\u0001\r\f b\r')).toBe(4);
  });

  it('counts the commas of every script that has its own (Latin, Arabic, CJK full-width)', () => {
    expect(countCommas('a, b، c， d')).toBe(3);
    expect(countCommas(',،﹐︐︑⹀⸴⸲，;.、')).toBe(9);
    // The global regex must not carry its position from one call to the next.
    expect(countCommas('x, y')).toBe(1);
    expect(countCommas('x, y')).toBe(1);
  });

  it('measures a length and its commas in one pass, the same numbers as normalizedLength and countCommas', () => {
    const texts = ['', '  a  b\n\n\tc ', 'a\u00a0\u00a0b', '\u0001\r\f b\r', 'a, b، c， d', ',،﹐︐︑⹀⸴⸲，;.、', ' x,\u00a0y ,, '];
    for (const text of texts) expect([lengthAndCommas(text), lastCommas()]).toEqual([normalizedLength(text), countCommas(text)]);
  });

  it('reads a subtree in document order and sees its ancestors', () => {
    const doc = parseHtml('<div id="a"><table><tr><td><code><b>one</b> two</code></td></tr></table></div>');
    const b = findFirst(doc, 'b')!;
    expect(textOf(findFirst(doc, 'code')!)).toBe('one two');
    expect(insideTag(b, 'table', 'pre')).toBe(true);
    expect(insideTag(b, 'pre')).toBe(false);
    expect([...ancestors(b)].map((el) => el.name)).toEqual(['code', 'td', 'tr', 'table', 'div']);
  });

  it('reads text nested deeper than the call stack allows', () => {
    const depth = 20_000;
    const doc = parseHtml(`${'<span>'.repeat(depth)}deep${'</span>'.repeat(depth)}`);
    expect(textOf(findFirst(doc, 'span')!)).toBe('deep');
  });
});
