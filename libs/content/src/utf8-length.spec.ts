import { utf8Length } from './utf8-length';

describe('utf8Length: Buffer.byteLength in UTF-8, counted by the runs that are not ASCII', () => {
  const texts = [
    '',
    'plain ascii <p class="x">text</p>',
    '\u0000\u007f\u0080\u00ff\u0100\u07ff\u0800\uffff',
    'caf\u00e9 \u201cquoted\u201d \u2014 dash',
    'emoji \ud83d\ude00 pair, lone high \ud83d at the end \ud83d',
    'lone low \ude00 alone, reversed \ude00\ud83d, two highs \ud83d\ud83d\ude00',
    '\ud83d',
    '\ude00',
    '\ud83d\ude00',
    'Greek \u03ba\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 and Chinese \u4f60\u597d\u4e16\u754c',
    '\u4f60\u597d'.repeat(1000),
    'a'.repeat(1000) + '\u00e9'.repeat(142), // an eighth of the text: counted here
    'a'.repeat(1000) + '\u00e9'.repeat(143), // past an eighth: Buffer.byteLength
    'a'.repeat(100000) + '\u2019' + 'b'.repeat(100000),
  ];

  it('gives Buffer.byteLength’s count on every kind of text', () => {
    for (const text of texts) expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });

  it('gives the same count on random text, repeated calls included', () => {
    const pieces = ['a', ' ', '<p>', '\u00e9', '\u2019', '\u4f60', '\ud83d', '\ude00', '\ud83d\ude00', '\u007f', '\u0080'];
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let n = 0; n < 500; n++) {
      let text = '';
      const length = Math.floor(random() * 60);
      const asciiHeavy = random() < 0.5;
      for (let i = 0; i < length; i++) text += asciiHeavy && random() < 0.8 ? 'x' : pieces[Math.floor(random() * pieces.length)];
      expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });
});
