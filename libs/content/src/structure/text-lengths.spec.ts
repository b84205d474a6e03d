import { solidLength } from '../dom';
import { normalizedLength } from '../readability/text-measure';
import { lastSolidLength, textLengths } from './text-lengths';

describe('text lengths: a text node measured in one pass', () => {
  const spaces = [
    ' ',
    '\t',
    '\n',
    '\v',
    '\f',
    '\r',
    '\u00a0',
    '\u1680',
    '\u2000',
    '\u200a',
    '\u2028',
    '\u2029',
    '\u202f',
    '\u205f',
    '\u3000',
    '\ufeff',
  ];
  const others = ['a', 'é', '\u180e', '\u200b', '\u2060', '\ud83d\ude00', '中'];
  const texts = ['', 'x', ...spaces.flatMap((s) => others.map((o) => `${s}${o}${s}${s}${o}${o}${s}`))];
  for (let c = 0; c < 0x10000; c += 7) texts.push(` a${String.fromCharCode(c)}b `);

  it('measures as normalizedLength and solidLength do, over every kind of white space', () => {
    for (const text of texts) expect([textLengths(text), lastSolidLength()]).toEqual([normalizedLength(text), solidLength(text)]);
  });
});
