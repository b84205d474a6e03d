import { hasUnsegmentedScript, isDigits, tokenize, tokenizeInto, wordKey, type Tokens } from './text-tokens';

const keys = (text: string) => tokenize(text).keys;

describe('words (tokenize)', () => {
  it('lower-cases: case never matters', () => {
    expect(keys('The BRIDGE of Peace')).toEqual(['the', 'bridge', 'of', 'peace']);
  });

  it('treats any run of whitespace (no-break and narrow spaces, tabs, newlines) as one separator', () => {
    expect(keys('Salt\u00a0\u00a0Roads\n\t by\u202fme')).toEqual(['salt', 'roads', 'by', 'me']);
  });

  it('applies Unicode NFKC: ligatures, full-width letters and digits, composed and decomposed accents', () => {
    expect(keys('ﬁne ＡＢＣ １２３')).toEqual(['fine', 'abc', '123']);
    expect(wordKey('Cafe\u0301')).toBe(wordKey('Café'));
  });

  it('keeps diacritics: "café" is not "cafe"', () => {
    expect(wordKey('café')).not.toBe(wordKey('cafe'));
  });

  it('drops punctuation, symbols and markdown syntax: they only separate words', () => {
    expect(keys('**Lydia’s** _Charm_ — #1 | $12.50 € \\*')).toEqual(['lydia', 's', 'charm', '1', '12', '50']);
  });

  it('makes every Han, Hiragana and Katakana character a word of its own, letters between them one word', () => {
    expect(keys('東京都のiPhone15')).toEqual(['東', '京', '都', 'の', 'iphone15']);
  });

  it('gives offsets into the original text', () => {
    const t = tokenize('  Ｂｏｏｋ  one');
    expect(t.starts).toEqual([2, 8]);
    expect(t.ends).toEqual([6, 11]);
  });

  it('leaves out the words inside skipped spans (markdown link targets)', () => {
    const text = '[Little, Brown](https://shop.example/lb) ok';
    const out: Tokens = { keys: [], starts: [], ends: [] };
    tokenizeInto(out, text, 0, text.length, [14, 40]);
    expect(out.keys).toEqual(['little', 'brown', 'ok']);
  });

  it('reads digits after NFKC only (full-width digits are digits)', () => {
    expect(isDigits('0123')).toBe(true);
    expect(isDigits(wordKey('１２'))).toBe(true);
    expect(isDigits('12a')).toBe(false);
    expect(isDigits('')).toBe(false);
  });
});

/** The tokenizer's definition, read by the regular expression alone (what the character scan must agree with). */
function byRegex(text: string, from: number, to: number, skip: number[]): Tokens {
  const out: Tokens = { keys: [], starts: [], ends: [] };
  const re = /[\p{L}\p{N}\p{M}]+/gu;
  re.lastIndex = from;
  let span = 0;
  for (let m = re.exec(text); m !== null && m.index < to; m = re.exec(text)) {
    const start = m.index;
    const end = Math.min(to, start + m[0].length);
    while (span < skip.length && skip[span + 1] <= start) span += 2;
    if (span < skip.length && skip[span] < end) continue;
    const word = text.slice(start, end);
    const push = (key: string, s: number, e: number) => (out.keys.push(key), out.starts.push(s), out.ends.push(e));
    if (/^[\x00-\x7f]*$/.test(word)) push(word.toLowerCase(), start, end);
    else if (!/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(word)) push(wordKey(word), start, end);
    else {
      // Each Han/Kana character a word, the letters between them one word.
      let run = -1;
      let at = start;
      for (const ch of word) {
        if (/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u.test(ch)) {
          if (run >= 0) push(wordKey(text.slice(run, at)), run, at);
          run = -1;
          push(wordKey(ch), at, at + ch.length);
        } else if (run < 0) run = at;
        at += ch.length;
      }
      if (run >= 0) push(wordKey(text.slice(run, end)), run, end);
    }
  }
  return out;
}

describe('the character scan agrees with the regular expression', () => {
  const pieces = [
    'a',
    'Z',
    'q',
    '7',
    '0',
    ' ',
    '  ',
    '.',
    ',',
    '-',
    '_',
    '*',
    '](',
    ')',
    '\n',
    '\u00a0',
    'é',
    'e\u0301',
    '²',
    'ª',
    'ﬁ',
    'Ａ',
    '１',
    '東',
    'の',
    'カ',
    '—',
    '’',
    '€',
    '😀',
    '𝐀',
    'ß',
    'İ',
    'Ω',
    'ж',
    '\u0301',
    'ä',
    'ı',
  ];
  it('on random texts, ranges and skipped spans', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 3000; round++) {
      let text = '';
      const parts = 1 + rand(25);
      for (let p = 0; p < parts; p++) text += pieces[rand(pieces.length)].repeat(1 + rand(3));
      // Only positions that start a code point, as the index passes them.
      const points = [...text.matchAll(/[\s\S]/gu)].map((m) => m.index).concat(text.length);
      const from = points[rand(Math.min(3, points.length))];
      const to = points[points.length - 1 - rand(Math.min(3, points.length))];
      const skip: number[] = [];
      if (rand(3) === 0 && text.length > 4) {
        const a = rand(text.length - 2);
        skip.push(a, a + 1 + rand(text.length - a - 1));
      }
      const got: Tokens = { keys: [], starts: [], ends: [] };
      tokenizeInto(got, text, from, Math.max(from, to), skip);
      expect([text, from, to, skip, got]).toEqual([text, from, to, skip, byRegex(text, from, Math.max(from, to), skip)]);
    }
  });
});

describe('scripts the tokenizer does not segment', () => {
  it('flags Thai, Lao, Khmer and Myanmar letters, not the scripts it knows', () => {
    expect(hasUnsegmentedScript('สวัสดีครับ')).toBe(true);
    expect(hasUnsegmentedScript('ສະບາຍດີ')).toBe(true);
    expect(hasUnsegmentedScript('សួស្តី')).toBe(true);
    expect(hasUnsegmentedScript('မင်္ဂလာပါ')).toBe(true);
    for (const known of ['Grüße', 'Ελλάδα', 'Москва', 'שלום', 'مرحبا', 'नमस्ते', '東京', 'カタカナ', '서울', '12.50 €'])
      expect([known, hasUnsegmentedScript(known)]).toEqual([known, false]);
  });
});
